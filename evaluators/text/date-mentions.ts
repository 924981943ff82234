/**
 * Dates in an answer, normalised to ISO 8601 strings (seed 004 §五.2 "数字、
 * 时间…是否准确", §九.1 rule checks):
 *
 *   2026-07-08, 2026/7/8, 2026.7.8      → 2026-07-08
 *   2026年7月8日 (or 8号)                → 2026-07-08
 *   2026年7月 → 2026-07;  2026年 → 2026; 7月8日 → --07-08;  7月 → --07
 *   July 8, 2026 / 8 July 2026 / Jul. 8th, 2026 → 2026-07-08
 *   July 2026 → 2026-07;  July 8 / 8 July → --07-08
 *
 * A year alone counts only from 1900 to 2099 and only with 年 ("2026年"); an
 * English month must be capitalised ("may" is a verb). Impossible dates
 * (2026-02-30) are skipped. Chinese-numeral dates (七月八日) and ambiguous
 * numeric orders (7/8/2026) are not read.
 *
 * Expects NFKC text (fact-mentions.ts normalises first).
 */
import { scanAndMask, type Span } from "./masked-scan.js";

export interface DateMention extends Span {
  /** YYYY-MM-DD, YYYY-MM, YYYY, --MM-DD or --MM. */
  iso: string;
  year: number | null;
  month: number | null;
  day: number | null;
  text: string;
}

type DateParts = Pick<DateMention, "iso" | "year" | "month" | "day">;

const MONTHS: Readonly<Record<string, number>> = {
  january: 1, february: 2, march: 3, april: 4, may: 5, june: 6, july: 7, august: 8, september: 9, october: 10, november: 11, december: 12,
  jan: 1, feb: 2, mar: 3, apr: 4, jun: 6, jul: 7, aug: 8, sep: 9, sept: 9, oct: 10, nov: 11, dec: 12,
};
const MONTH = "(January|February|March|April|May|June|July|August|September|October|November|December|Sept|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Oct|Nov|Dec)(?![A-Za-z])\\.?";
const ORDINAL = "(?:st|nd|rd|th)?";

const pad = (value: number) => String(value).padStart(2, "0");

function dateParts(year: number | null, month: number | null, day: number | null): DateParts | null {
  if (year !== null && (year < 1000 || year > 9999)) return null;
  if (month !== null && (month < 1 || month > 12)) return null;
  if (day !== null) {
    if (month === null || day < 1) return null;
    // A year-less day is checked against a leap year, so 2月29日 is accepted.
    const daysInMonth = new Date(Date.UTC(year ?? 2000, month, 0)).getUTCDate();
    if (day > daysInMonth) return null;
  }
  const iso =
    year !== null
      ? [String(year), month === null ? null : pad(month), day === null ? null : pad(day)].filter((part) => part !== null).join("-")
      : `--${pad(month!)}${day === null ? "" : `-${pad(day)}`}`;
  return { iso, year, month, day };
}

const number = (text: string | undefined) => (text === undefined ? null : Number(text));
const monthNumber = (text: string) => MONTHS[text.toLowerCase()] ?? null;

/** In order: each later pattern only sees what the earlier ones left. */
const PATTERNS: readonly [RegExp, (match: RegExpExecArray) => DateParts | null][] = [
  [/(?<!\d)(\d{4})([-/.])(\d{1,2})\2(\d{1,2})(?!\d)/g, (match) => dateParts(number(match[1]), number(match[3]), number(match[4]))],
  [/(?<!\d)(?:(\d{4})\s*年\s*)?(\d{1,2})\s*月(?:\s*(\d{1,2})\s*[日号])?/g, (match) => dateParts(number(match[1]), number(match[2]), number(match[3]))],
  [/(?<!\d)((?:19|20)\d{2})\s*年/g, (match) => dateParts(number(match[1]), null, null)],
  [/(?<!\d)((?:19|20)\d{2})-(\d{1,2})(?![\d-])/g, (match) => dateParts(number(match[1]), number(match[2]), null)],
  [new RegExp(`\\b${MONTH}\\s+(\\d{1,2})${ORDINAL}(?:\\s*,\\s*|\\s+)(\\d{4})\\b`, "g"), (match) => dateParts(number(match[3]), monthNumber(match[1]!), number(match[2]))],
  [new RegExp(`\\b(\\d{1,2})${ORDINAL}\\s+(?:of\\s+)?${MONTH},?\\s+(\\d{4})\\b`, "g"), (match) => dateParts(number(match[3]), monthNumber(match[2]!), number(match[1]))],
  [new RegExp(`\\b${MONTH},?\\s+(\\d{4})\\b`, "g"), (match) => dateParts(number(match[2]), monthNumber(match[1]!), null)],
  [new RegExp(`\\b${MONTH}\\s+(\\d{1,2})${ORDINAL}\\b`, "g"), (match) => dateParts(null, monthNumber(match[1]!), number(match[2]))],
  [new RegExp(`\\b(\\d{1,2})${ORDINAL}\\s+(?:of\\s+)?${MONTH}`, "g"), (match) => dateParts(null, monthNumber(match[2]!), number(match[1]))],
];

export function findDates(text: string): { dates: DateMention[]; rest: string } {
  const dates: DateMention[] = [];
  let rest = text;
  for (const [pattern, convert] of PATTERNS) {
    const scan = scanAndMask(rest, pattern, convert);
    dates.push(...scan.found);
    rest = scan.rest;
  }
  dates.sort((first, second) => first.start - second.start);
  return { dates, rest };
}

/**
 * Two dates agree when they name the same month and day components with equal
 * values, and the same year whenever both name one: "7月8日" agrees with
 * "2026-07-08", "2026-07" does not agree with "2026-07-08".
 */
export function datesAgree(first: DateParts, second: DateParts): boolean {
  if ((first.month === null) !== (second.month === null) || (first.day === null) !== (second.day === null)) return false;
  if (first.month !== second.month || first.day !== second.day) return false;
  return first.year === null || second.year === null || first.year === second.year;
}
