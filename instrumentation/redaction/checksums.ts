/**
 * Check digits that tell a real identifier from a number that only looks like
 * one, so redaction does not blank order numbers, timestamps and amounts.
 */

/** ISO 7064 MOD 11-2 weights of the first 17 digits (GB 11643-1999 §8.2). */
const RESIDENT_ID_WEIGHTS = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2] as const;
const RESIDENT_ID_CHECK_CHARACTERS = "10X98765432";

/**
 * A Chinese citizen identity number (GB 11643-1999): 18 characters — a 6-digit
 * region code whose first digit is a province (1–9), a birth date YYYYMMDD that
 * exists, a 3-digit sequence and a check character (0–9 or X) over the first 17.
 */
export function isChineseResidentId(value: string): boolean {
  if (!/^[1-9]\d{16}[\dXx]$/.test(value)) return false;
  if (!isCalendarDate(Number(value.slice(6, 10)), Number(value.slice(10, 12)), Number(value.slice(12, 14)))) return false;
  let sum = 0;
  for (let index = 0; index < 17; index += 1) sum += Number(value[index]) * RESIDENT_ID_WEIGHTS[index]!;
  return RESIDENT_ID_CHECK_CHARACTERS[sum % 11] === value[17]!.toUpperCase();
}

function isCalendarDate(year: number, month: number, day: number): boolean {
  if (year < 1900 || month < 1 || month > 12 || day < 1) return false;
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** The Luhn (mod 10) check used by payment card numbers (ISO/IEC 7812-1 Annex B). */
export function passesLuhn(digits: string): boolean {
  if (!/^\d+$/.test(digits)) return false;
  let sum = 0;
  let double = false;
  for (let index = digits.length - 1; index >= 0; index -= 1) {
    let digit = digits.charCodeAt(index) - 48;
    if (double) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
    double = !double;
  }
  return sum % 10 === 0;
}
