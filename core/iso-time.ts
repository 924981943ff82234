/**
 * ISO 8601 times as people type them into an address or a flag: a date (2026-07-08), with a time to the minute,
 * second or fraction, and a zone (Z, +02:00 or +0200) after a time; no zone is UTC. A year may be expanded
 * (+275760, -000100) so that a time past the readers' bounds is refused as out of range rather than as unreadable.
 *
 * `Date.parse` alone rolls a date that does not exist over (2026-02-30 is March 2), reads a time without a zone in
 * the machine's zone, and takes forms nobody documents ("0" is the year 2000): each field is checked here first, and
 * only a time that exists as written is read.
 */
import { failure, success, type Result } from "./result.js";

export type IsoTimeProblem = { kind: "unreadable" } | { kind: "does_not_exist"; why: string };

const ISO_TIME = /^([+-]\d{6}|\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-](\d{2}):?(\d{2}))?)?$/;
const MONTH_NAMES = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];

function daysInMonth(year: number, month: number): number {
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
}

/** Epoch milliseconds of the time as written; `unreadable` when it is not one of the forms, else what does not exist. */
export function parseIsoTime(text: string): Result<number, IsoTimeProblem> {
  const parts = ISO_TIME.exec(text);
  if (parts === null) return failure({ kind: "unreadable" });
  const [, yearText, monthText, dayText, hourText, minuteText, secondText, zone, zoneHourText, zoneMinuteText] = parts;
  const year = Number(yearText);
  const month = Number(monthText);
  const day = Number(dayText);
  const missing = (why: string) => failure<IsoTimeProblem>({ kind: "does_not_exist", why });
  if (month < 1 || month > 12) return missing(`the date does not exist, there is no month ${monthText} (months run from 01 to 12)`);
  const days = daysInMonth(year, month);
  if (day < 1 || day > days) return missing(`the date ${yearText}-${monthText}-${dayText} does not exist (${MONTH_NAMES[month - 1]} ${year} has ${days} days)`);
  if (hourText !== undefined && Number(hourText) > 23) return missing("the time does not exist, hours run from 00 to 23 (write the next day's 00:00 for midnight at the end of a day)");
  if (minuteText !== undefined && Number(minuteText) > 59) return missing("the time does not exist, minutes run from 00 to 59");
  if (secondText !== undefined && Number(secondText) > 59) return missing("the time does not exist, seconds run from 00 to 59");
  if (zoneHourText !== undefined && (Number(zoneHourText) > 23 || Number(zoneMinuteText) > 59)) return missing(`the zone ${zone} does not exist (offsets run from -23:59 to +23:59)`);
  // Every field is now in range, so Date.parse reads it as written; no zone is UTC (Date.parse would read local time).
  const parsed = Date.parse(zone === undefined ? `${text}${hourText === undefined ? "" : "Z"}` : text);
  if (Number.isNaN(parsed)) return missing("it is outside the times ragscope can read: years -271821 to 275760");
  return success(parsed);
}
