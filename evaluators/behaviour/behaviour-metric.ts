/**
 * One behaviour metric: its definition in words (README.md lists them all),
 * and `observe`, which turns requests into one observation per counted item
 * — a request or a session — with its value (1 / 0 for a rate, the score for
 * a mean). The observations keep their session and user, so experiment
 * statistics can cluster them (evaluators/experiments/).
 */
import type { BehaviourRequest } from "./behaviour-request.js";
import type { BehaviourWindows } from "./behaviour-windows.js";
import type { BehaviourEvidence } from "./behaviour-evidence.js";

export type BehaviourLevel = "request" | "session";

export interface BehaviourObservation {
  /** The request's trace id, or the session's first request's. */
  readonly traceId: string;
  readonly sessionKey: string;
  readonly userId: string | null;
  readonly variant: string | null;
  readonly value: number;
}

export interface BehaviourContext {
  /** Every request of the period, any order. */
  readonly requests: readonly BehaviourRequest[];
  readonly windows: BehaviourWindows;
  /** Milliseconds since the epoch: what "the window has not passed yet" is measured against. */
  readonly now: number;
}

export interface BehaviourMetricDefinition {
  readonly id: string;
  readonly title: string;
  readonly level: BehaviourLevel;
  /** A rate (observations are 1 or 0) or a mean of scores. */
  readonly kind: "rate" | "mean";
  /** Whether up is good, for the experiment decision; null when the direction is not clear (citation clicks). */
  readonly higherIsBetter: boolean | null;
  /** The definition in words: numerator, denominator, windows. */
  readonly definition: string;
  /** What the number may mean besides the obvious (the seed's cautions). */
  readonly caution: string | null;
  /** What the requests must carry for the metric to be measured at all (behaviour-evidence.ts): without it, no data. */
  readonly measuredFrom: BehaviourEvidence;
  observe(context: BehaviourContext): BehaviourObservation[];
}

export function requestObservation(request: BehaviourRequest, value: number): BehaviourObservation {
  return { traceId: request.traceId, sessionKey: request.sessionKey, userId: request.userId, variant: request.variant, value };
}

/** Numerator, denominator and value (null with nothing to count: not 0). */
export interface BehaviourSummary {
  readonly metric: string;
  readonly count: number;
  readonly total: number;
  readonly value: number | null;
}

export function summarize(metric: string, observations: readonly BehaviourObservation[]): BehaviourSummary {
  const total = observations.reduce((sum, observation) => sum + observation.value, 0);
  return { metric, count: observations.length, total, value: observations.length === 0 ? null : total / observations.length };
}
