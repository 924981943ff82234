/**
 * The user-behaviour part of the seed's §十二 business row, for the UI's
 * Quality page and `ragscope report`: every behaviour metric of the catalog
 * (behaviour-catalog.ts) over the requests of a time range — the event rates
 * and the session-window rates (repeated question, follow-up, abandonment,
 * session resolution, first-contact resolution) — with its definition and
 * the seed's caution. The same definitions the experiment report compares per
 * variant; one computation, so the surfaces cannot disagree.
 *
 * The requests are those that started in the range: a session that began
 * before it counts from its first request inside it, and windows that have
 * not passed by `now` are left out (abandonment-rate.ts says how). A metric
 * whose evidence no request of the range carries — no user event at all, no
 * session id — is no data, not 0 (behaviour-evidence.ts), and its row says
 * why.
 */
import type { CaseResult } from "../../contracts/case-result.js";
import type { QualityReader, QualityScope } from "../../store/ports/quality-reader.js";
import { behaviourMetrics } from "./behaviour-catalog.js";
import { carriesEvidence, noEvidenceInRange } from "./behaviour-evidence.js";
import { summarize } from "./behaviour-metric.js";
import { toBehaviourRequest, type BehaviourRequest } from "./behaviour-request.js";
import { defaultBehaviourWindows, type BehaviourWindows } from "./behaviour-windows.js";

/** The metrics that need a session window (the rest are rates of user events on single requests). */
export const SESSION_WINDOW_METRICS = ["follow_up_rate", "repeated_question_rate", "session_resolution_rate", "abandonment_rate", "first_contact_resolution"] as const;

export interface BehaviourRow {
  readonly metric: string;
  readonly title: string;
  readonly level: "request" | "session";
  readonly kind: "rate" | "mean";
  readonly sessionWindow: boolean;
  readonly definition: string;
  readonly caution: string | null;
  /** Null when nothing was counted: not 0. */
  readonly value: number | null;
  /** Why the value is no data although the range has requests: none of them carries what the metric is measured from. Null otherwise. */
  readonly withoutEvidence: string | null;
  /** Requests or sessions counted. */
  readonly count: number;
  /** Sum of the observations (successes of a rate). */
  readonly total: number;
}

export interface BehaviourBoard {
  readonly requests: number;
  /** True when the range held more requests than were read (the board covers the earliest ones only). */
  readonly truncated: boolean;
  readonly rows: BehaviourRow[];
}

export function behaviourBoard(caseResults: readonly CaseResult[], now: number, truncated = false, windows: BehaviourWindows = defaultBehaviourWindows): BehaviourBoard {
  return behaviourBoardOf(caseResults.filter((caseResult) => !caseResult.rag_observation.partial_trace).map(toBehaviourRequest), now, truncated, windows);
}

/** The board of complete requests (a store hands these out without whole Case Results: QualityReader.behaviourRequests). */
export function behaviourBoardOf(requests: readonly BehaviourRequest[], now: number, truncated = false, windows: BehaviourWindows = defaultBehaviourWindows): BehaviourBoard {
  const context = { requests, windows, now };
  const rows = behaviourMetrics.map((definition) => {
    const summary = summarize(definition.id, definition.observe(context));
    return {
      metric: definition.id,
      title: definition.title,
      level: definition.level,
      kind: definition.kind,
      sessionWindow: (SESSION_WINDOW_METRICS as readonly string[]).includes(definition.id),
      definition: definition.definition,
      caution: definition.caution,
      value: summary.value,
      withoutEvidence: requests.length > 0 && !carriesEvidence(requests, definition.measuredFrom) ? noEvidenceInRange(definition.measuredFrom) : null,
      count: summary.count,
      total: summary.total,
    };
  });
  return { requests: requests.length, truncated, rows };
}

/**
 * At most this many requests are read for one board: what the metrics read of
 * a request is a few hundred bytes (more with long questions or many events),
 * so this bounds the memory to a few megabytes. A busier
 * range says it was cut (BehaviourBoard.truncated); narrow the range or filter
 * by service.
 */
export const MAXIMUM_BEHAVIOUR_REQUESTS = 20_000;

/** The board of one scope, read through a store's QualityReader (tenants applied by the reader). */
export async function readBehaviourBoard(reader: Pick<QualityReader, "behaviourRequests">, scope: QualityScope, now: number): Promise<BehaviourBoard> {
  const read = await reader.behaviourRequests(scope, MAXIMUM_BEHAVIOUR_REQUESTS);
  return behaviourBoardOf(read.requests, now, read.truncated);
}
