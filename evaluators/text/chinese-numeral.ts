/**
 * Simple Chinese numerals → numbers: 一 … 九, 两, 零/〇, 十, 百, 千, 万, 亿
 * (十五 → 15, 二十 → 20, 一百零五 → 105, 三千 → 3000, 两万 → 20000,
 * 一亿三千万 → 130000000). A last digit right after a unit is read the
 * colloquial way, one tenth of that unit: 一万五 → 15000, 三千五 → 3500,
 * 一百五 → 150 (一百零五 keeps its 零 and is 105).
 *
 * Not supported (null): digit runs read position by position (二〇二六) and
 * ranges (三四天), which are ambiguous without context; financial forms
 * (壹 贰 …).
 */

const DIGITS: Readonly<Record<string, number>> = { 零: 0, 〇: 0, 一: 1, 二: 2, 两: 2, 三: 3, 四: 4, 五: 5, 六: 6, 七: 7, 八: 8, 九: 9 };
const SMALL_UNITS: Readonly<Record<string, number>> = { 十: 10, 百: 100, 千: 1000 };

/** Characters a simple Chinese numeral is made of, for building patterns. */
export const CHINESE_NUMERAL_CHARACTERS = "零〇一二两三四五六七八九十百千万亿";

export function parseChineseNumeral(text: string): number | null {
  if (text === "") return null;
  let total = 0;
  let section = 0;
  let digit: number | null = null;
  /** The unit just read, and the unit right before the pending digit. */
  let previousUnit: number | null = null;
  let unitBeforeDigit: number | null = null;
  for (const character of text) {
    const digitValue = DIGITS[character];
    if (digitValue !== undefined) {
      if (digit !== null && digitValue !== 0) return null;
      digit = digitValue === 0 ? null : digitValue;
      unitBeforeDigit = digitValue === 0 ? null : previousUnit;
      previousUnit = null;
      continue;
    }
    const unit = SMALL_UNITS[character];
    if (unit !== undefined) {
      section += (digit ?? 1) * unit;
      previousUnit = unit;
    } else if (character === "万") {
      total += (section + (digit ?? 0)) * 10_000;
      section = 0;
      previousUnit = 10_000;
    } else if (character === "亿") {
      total = (total + section + (digit ?? 0)) * 100_000_000;
      section = 0;
      previousUnit = 100_000_000;
    } else {
      return null;
    }
    digit = null;
  }
  const trailing = digit === null ? 0 : unitBeforeDigit === null ? digit : (digit * unitBeforeDigit) / 10;
  const value = total + section + trailing;
  return value === 0 && !/[零〇]/.test(text) ? null : value;
}
