/**
 * Was a chunk's document version in force when the question was asked?
 * (seed 004 §三.5 "过期文档召回率", §五.5 "是否引用了过期版本"; seed 000:
 * `context_policy: 只使用 effective_at 时仍生效的政策`).
 *
 * The instant that matters, first found wins:
 * 1. the case's `environment_requirements.effective_at` (the time boundary the
 *    case declares, seed 000);
 * 2. the case's `environment.effective_at`;
 * 3. the request's `started_at` — online traffic, or a case without either.
 *
 * A version is in force at t when `effective_from <= t <= effective_to`, a
 * missing bound being open. The bounds follow the span contract
 * (contracts/span-attributes.ts: `effective_to` is the instant "after which this
 * version is no longer in force"), and a date without a time covers its whole
 * day: `effective_to: 2026-06-30` is still in force on 30 June, and
 * `effective_at: 2026-07-08` means the start of 8 July. Times without a zone
 * are read as UTC, so the verdict does not depend on the machine's time zone.
 * Times are read strictly (core/iso-time.ts): a date that does not exist
 * (2026-02-30) is not rolled over into the next month. A bound that is recorded
 * but is not such a time makes the chunk's version status unknown — it is
 * neither counted in force nor out of it, and the chunk is not "dated" — since
 * reading it as open would count a version whose mistyped end date has passed
 * as still in force. A case effective time that is given but is not a time is
 * not passed over for the next source: the case's instant is then unknown.
 */
import { chunkLabel, type CaseResult, type RetrievedChunk } from "../../contracts/case-result.js";
import type { EvalCase } from "../../contracts/eval-case.js";
import { parseIsoTime } from "../../core/iso-time.js";

export type EffectiveAtSource = "environment_requirements.effective_at" | "environment.effective_at" | "started_at";

export interface EffectiveAt {
  /** Milliseconds since the epoch. */
  instant: number;
  source: EffectiveAtSource;
  text: string;
}

export type VersionStatus = "in_force" | "not_yet_in_force" | "expired" | "unknown";

const DAY_MS = 86_400_000;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

interface ParsedTime {
  instant: number;
  dateOnly: boolean;
}

/** Not recorded (null), a time, or recorded but not a time ("unreadable"). */
function parseTime(text: string | null | undefined): ParsedTime | null | "unreadable" {
  if (text === null || text === undefined || text.trim() === "") return null;
  const trimmed = text.trim();
  // A space between date and time is how databases print a time; ISO 8601 writes a T.
  const parsed = parseIsoTime(trimmed.replace(" ", "T"));
  return parsed.ok ? { instant: parsed.value, dateOnly: DATE_ONLY.test(trimmed) } : "unreadable";
}

export function effectiveAtOf(caseResult: CaseResult, evalCase: EvalCase | null): EffectiveAt | null {
  const candidates: [string | undefined, EffectiveAtSource][] = [
    [evalCase?.environment_requirements.effective_at, "environment_requirements.effective_at"],
    [evalCase?.environment.effective_at, "environment.effective_at"],
    [caseResult.started_at, "started_at"],
  ];
  for (const [text, source] of candidates) {
    const parsed = parseTime(text);
    if (parsed === "unreadable") return null;
    if (parsed !== null && text !== undefined) return { instant: parsed.instant, source, text };
  }
  return null;
}

/** True when the chunk carries at least one effective bound and every bound it carries is a time. */
export function carriesEffectiveTime(chunk: Pick<RetrievedChunk, "effective_from" | "effective_to">): boolean {
  const from = parseTime(chunk.effective_from);
  const to = parseTime(chunk.effective_to);
  return from !== "unreadable" && to !== "unreadable" && (from !== null || to !== null);
}

/** True when the chunk carries an effective bound that is not a time: its version status is unknown. */
export function carriesUnreadableEffectiveTime(chunk: Pick<RetrievedChunk, "effective_from" | "effective_to">): boolean {
  return parseTime(chunk.effective_from) === "unreadable" || parseTime(chunk.effective_to) === "unreadable";
}

export function versionStatus(chunk: Pick<RetrievedChunk, "effective_from" | "effective_to">, at: number): VersionStatus {
  const from = parseTime(chunk.effective_from);
  const to = parseTime(chunk.effective_to);
  if (from === "unreadable" || to === "unreadable" || (from === null && to === null)) return "unknown";
  if (from !== null && at < from.instant) return "not_yet_in_force";
  if (to !== null) {
    const expired = to.dateOnly ? at >= to.instant + DAY_MS : at > to.instant;
    if (expired) return "expired";
  }
  return "in_force";
}

/** "expired" and "not yet in force" are both a version that was not the one in force. */
export function isNotInForce(status: VersionStatus): boolean {
  return status === "expired" || status === "not_yet_in_force";
}

/** A chunk and its effective bounds as recorded, for a reason: `policy-v1 [2025-01-01 – 2026-06-30]`, "…" an open bound. */
export function chunkWithBounds(chunk: RetrievedChunk): string {
  return `${chunkLabel(chunk)} [${chunk.effective_from ?? "…"} – ${chunk.effective_to ?? "…"}]`;
}

/** Why a freshness metric has no instant to judge at. */
export const NO_EFFECTIVE_AT = "the case's effective time is not a date and time, or neither the case nor the request gives one";

/** The chunks whose version status is unknown because a bound is not a time, for a reason; null when none is. */
export function unreadableEffectiveTimeNote(chunks: readonly RetrievedChunk[]): string | null {
  const unreadable = chunks.filter(carriesUnreadableEffectiveTime);
  if (unreadable.length === 0) return null;
  const bounds = unreadable.map(chunkWithBounds).join(", ");
  return `${unreadable.length} chunk(s) carry an effective time that is not a date (${bounds}): whether their version was in force is unknown, and they are not counted`;
}
