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
 * A bound that does not parse counts as not recorded.
 */
import type { CaseResult, RetrievedChunk } from "../../contracts/case-result.js";
import type { EvalCase } from "../../contracts/eval-case.js";

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
const HAS_ZONE = /(Z|[+-]\d{2}:?\d{2})$/i;

interface ParsedTime {
  instant: number;
  dateOnly: boolean;
}

function parseTime(text: string | null | undefined): ParsedTime | null {
  if (text === null || text === undefined) return null;
  const trimmed = text.trim();
  if (DATE_ONLY.test(trimmed)) {
    const instant = Date.parse(`${trimmed}T00:00:00Z`);
    return Number.isNaN(instant) ? null : { instant, dateOnly: true };
  }
  const isoLike = trimmed.replace(" ", "T");
  const instant = Date.parse(HAS_ZONE.test(isoLike) ? isoLike : `${isoLike}Z`);
  return Number.isNaN(instant) ? null : { instant, dateOnly: false };
}

export function effectiveAtOf(caseResult: CaseResult, evalCase: EvalCase | null): EffectiveAt | null {
  const candidates: [string | undefined, EffectiveAtSource][] = [
    [evalCase?.environment_requirements.effective_at, "environment_requirements.effective_at"],
    [evalCase?.environment.effective_at, "environment.effective_at"],
    [caseResult.started_at, "started_at"],
  ];
  for (const [text, source] of candidates) {
    const parsed = parseTime(text);
    if (parsed !== null && text !== undefined) return { instant: parsed.instant, source, text };
  }
  return null;
}

/** True when the chunk carries at least one effective bound that parses. */
export function carriesEffectiveTime(chunk: Pick<RetrievedChunk, "effective_from" | "effective_to">): boolean {
  return parseTime(chunk.effective_from) !== null || parseTime(chunk.effective_to) !== null;
}

export function versionStatus(chunk: Pick<RetrievedChunk, "effective_from" | "effective_to">, at: number): VersionStatus {
  const from = parseTime(chunk.effective_from);
  const to = parseTime(chunk.effective_to);
  if (from === null && to === null) return "unknown";
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
