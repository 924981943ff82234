/**
 * Numbers in an answer, with their unit (seed 004 §五.2 "数字…是否准确"):
 *
 * - Arabic numerals, with thousands separators and decimals (1,000, 3.5);
 *   full-width digits arrive as ASCII after NFKC. A following 万 or 亿
 *   multiplies (3万元 → 30000 CNY, 1.5亿 → 150000000).
 * - A currency sign before the number sets the unit ($5 → 5 USD, ¥100 →
 *   100 CNY) unless a unit word follows.
 * - Simple Chinese numerals (chinese-numeral.ts) only when a unit follows
 *   (十五天 → 15 day, 两个工作日 → 2 workday) or after 百分之 (百分之十 → 10 %):
 *   alone, 一 and 万 are mostly parts of words (一起, 万一).
 * - 百分之 with Arabic digits too (百分之15 → 15 %).
 * - Ranges share the unit written once at their end: "3至5个工作日", "3-5天",
 *   "三到五天", "3 to 5 business days" give both numbers the unit.
 *
 * Units are canonical so that 天 / 日 / days agree: see UNITS. A number with
 * no unit from the list has unit null. Durations agree across units when they
 * are equal (1年 = 12个月 = 1 year, 1周 = 7天): see DURATIONS. Negative numbers and English number
 * words (fifteen) are not read. Digits glued to Latin letters (v2, mp3) are
 * not numbers.
 *
 * Expects NFKC text with dates and identifiers already blanked out
 * (fact-mentions.ts).
 */
import { CHINESE_NUMERAL_CHARACTERS, parseChineseNumeral } from "./chinese-numeral.js";
import { scanAndMask, type Span } from "./masked-scan.js";

export interface NumberMention extends Span {
  value: number;
  /** Canonical unit ("day", "%", "CNY", …) or null. */
  unit: string | null;
  text: string;
}

/** Surface form → canonical unit. Longer forms are tried first (个工作日 before 个). */
const UNITS: Readonly<Record<string, string>> = {
  "%": "%", "‰": "‰", percent: "%", "per cent": "%",
  个工作日: "workday", 工作日: "workday", "working days": "workday", "working day": "workday", "business days": "workday", "business day": "workday",
  天: "day", 日: "day", days: "day", day: "day",
  个星期: "week", 星期: "week", 周: "week", weeks: "week", week: "week",
  个月: "month", months: "month", month: "month",
  年: "year", years: "year", year: "year",
  个小时: "hour", 小时: "hour", hours: "hour", hour: "hour",
  分钟: "minute", minutes: "minute", minute: "minute",
  秒钟: "second", 秒: "second", seconds: "second", second: "second",
  元: "CNY", 块钱: "CNY", 块: "CNY", 人民币: "CNY", yuan: "CNY", rmb: "CNY", cny: "CNY",
  美元: "USD", dollars: "USD", dollar: "USD", usd: "USD",
  欧元: "EUR", euros: "EUR", euro: "EUR", eur: "EUR",
  积分: "points", points: "points",
  倍: "times", times: "times",
  次: "次", 件: "件", 个: "个", 人: "person", people: "person", persons: "person", 岁: "age",
  公里: "km", km: "km", 米: "m", 公斤: "kg", 千克: "kg", kg: "kg",
  gb: "GB", mb: "MB", tb: "TB",
};

/** Counting words: two different counts of them are not a contradiction (3个步骤, 5个人). */
export const COUNT_UNITS: ReadonlySet<string> = new Set(["个", "件", "次", "person"]);

const CURRENCY_SIGNS: Readonly<Record<string, string>> = { $: "USD", "¥": "CNY", "€": "EUR", "£": "GBP" };
const MULTIPLIERS: Readonly<Record<string, number>> = { 万: 10_000, 亿: 100_000_000 };

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const surfaces = Object.keys(UNITS).sort((first, second) => second.length - first.length);
const asciiUnit = (surface: string) => /^[a-z ]+$/.test(surface);
const UNIT = `(${surfaces.map((surface) => (asciiUnit(surface) ? `${escape(surface)}(?![a-z])` : escape(surface))).join("|")})`;
const CHINESE_UNIT = `(${surfaces.filter((surface) => !asciiUnit(surface)).map(escape).join("|")})`;

/**
 * An optional group at the start of a pattern is written `(?:(…)|)`, not
 * `(…)?`: the two match alike (the group first, else nothing; same captures),
 * but with the second V8 works out which characters a match can start with
 * and skips every other position of the text at once, where with the first
 * it tried the whole pattern at each position (2.5–6× the time on a long
 * context without numerals).
 */
const ARABIC = new RegExp(`(?<![A-Za-z0-9_.])(?:([$¥€£]\\s?)|)(?:(百分之)|)(\\d{1,3}(?:,\\d{3})+|\\d+)(\\.\\d+)?(?![\\d])(?:\\s?([万亿]))?(?:\\s?${UNIT})?`, "gi");
const CHINESE = new RegExp(`(?:(百分之)|)([${CHINESE_NUMERAL_CHARACTERS}]+)${CHINESE_UNIT}?`, "g");

const unitOf = (surface: string | undefined) => (surface === undefined ? null : (UNITS[surface.toLowerCase()] ?? null));

function arabic(match: RegExpExecArray): Omit<NumberMention, keyof Span | "text"> {
  const [, sign, percentPrefix, digits, decimals, multiplier, unit] = match;
  const value = Number(digits!.replaceAll(",", "") + (decimals ?? "")) * (multiplier === undefined ? 1 : MULTIPLIERS[multiplier]!);
  const signUnit = sign === undefined ? null : CURRENCY_SIGNS[sign.trim()]!;
  return { value, unit: percentPrefix !== undefined ? "%" : (unitOf(unit) ?? signUnit) };
}

/** A Chinese numeral with no unit is kept only until ranges are resolved ("三至五天"). */
interface Candidate extends Omit<NumberMention, keyof Span | "text"> {
  bare: boolean;
}

function chinese(match: RegExpExecArray): Candidate | null {
  const [, percentPrefix, numeral, unit] = match;
  const value = parseChineseNumeral(numeral!);
  if (value === null) return null;
  return { value, unit: percentPrefix !== undefined ? "%" : unitOf(unit), bare: percentPrefix === undefined && unit === undefined };
}

const RANGE_CONNECTOR = /^\s*(?:至|到|~|-|–|—|to)\s*$/i;

export function findNumbers(text: string): { numbers: NumberMention[]; rest: string } {
  const arabicScan = scanAndMask(text, ARABIC, (match): Candidate => ({ ...arabic(match), bare: false }));
  const chineseScan = scanAndMask(arabicScan.rest, CHINESE, chinese);
  const candidates = [...arabicScan.found, ...chineseScan.found].sort((first, second) => first.start - second.start);
  // Right to left, so "1至2至3天" passes the unit all the way back.
  for (let index = candidates.length - 2; index >= 0; index -= 1) {
    const current = candidates[index]!;
    const next = candidates[index + 1]!;
    if (current.unit === null && next.unit !== null && RANGE_CONNECTOR.test(text.slice(current.end, next.start))) {
      candidates[index] = { ...current, unit: next.unit, bare: false };
    }
  }
  const numbers = candidates.filter((candidate) => !candidate.bare).map(({ bare: _bare, ...mention }) => mention);
  return { numbers, rest: chineseScan.rest };
}

/**
 * Durations that convert exactly, each in the smallest unit of its family:
 * calendar spans in months (1 year = 12 months), clock spans in seconds
 * (1 week = 7 days, 1 day = 24 hours, 1 hour = 60 minutes, 1 minute = 60
 * seconds). Across the families nothing converts exactly (a month is 28 to
 * 31 days, a year 365 or 366), and a workday is not a day: those stay apart.
 */
const DURATIONS: Readonly<Record<string, { family: "calendar" | "clock"; size: number }>> = {
  year: { family: "calendar", size: 12 },
  month: { family: "calendar", size: 1 },
  week: { family: "clock", size: 7 * 24 * 3600 },
  day: { family: "clock", size: 24 * 3600 },
  hour: { family: "clock", size: 3600 },
  minute: { family: "clock", size: 60 },
  second: { family: "clock", size: 1 },
};

/**
 * A number's measure: its unit's family and its value in that family's
 * smallest unit, so that 1 year and 12 months are the same measure, as are 1
 * week and 7 days; any other unit is its own family at its own value.
 */
export function measureOf(mention: Pick<NumberMention, "value" | "unit">): { dimension: string | null; amount: number } {
  const duration = mention.unit === null ? undefined : DURATIONS[mention.unit];
  if (duration === undefined) return { dimension: mention.unit, amount: mention.value };
  return { dimension: `duration:${duration.family}`, amount: mention.value * duration.size };
}

/** Same value (to a relative 1e-9) in the same unit, or a duration equal to it in another unit (1年 = 12个月), or no unit on either side. */
export function numbersAgree(first: Pick<NumberMention, "value" | "unit">, second: Pick<NumberMention, "value" | "unit">): boolean {
  const sameValue = (one: number, other: number) => Math.abs(one - other) <= 1e-9 * Math.max(1, Math.abs(one), Math.abs(other));
  if (first.unit === null || second.unit === null) return sameValue(first.value, second.value);
  const [one, other] = [measureOf(first), measureOf(second)];
  return one.dimension === other.dimension && sameValue(one.amount, other.amount);
}
