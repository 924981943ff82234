/**
 * The read side the live UI and its JSON API use: traces (Case Results) newest
 * first with filters, one trace with everything stored for it, and the runs.
 * Paging is by key (the last row's place in the list's order: TraceCursor), never by offset, so a
 * page deep in a million traces costs what the first page costs, and traces
 * that arrive while someone pages do not shift the pages they already saw.
 * Like the RunReader, a replayed trace counts once (the latest version wins).
 * A case of a run sent again (after midnight UTC, from a renamed service)
 * keeps its Case Result id under a new request: the list shows each request
 * with its own trace, service and time, as the dashboards count them, and
 * each opens by its id and trace id (TraceRequest); the RunReader counts the
 * case once.
 */
import type { StoredRawSpan } from "../../contracts/raw-spans.js";
import type { CaseResult } from "../../contracts/case-result.js";
import type { EvalCase } from "../../contracts/eval-case.js";
import type { EvaluationResult } from "../../contracts/evaluation-result.js";
import type { RunListing } from "./run-listing.js";

export interface TraceFilter {
  service?: string;
  tenant?: string;
  route?: string;
  runId?: string;
  datasetId?: string;
  /** A final verdict (passed, failed, review_required, unjudged, not_evaluated): an agreed human review's, else the automatic one. */
  verdict?: string;
  /**
   * The automatic verdict (the evaluation's quality_status), whatever reviewers said since. The review queue lists
   * the cases the evaluation routed to review by it: filtered by the final verdict, a case left every queue once its
   * first reviewer labelled it, and the second reviewer never saw it.
   */
  automaticVerdict?: string;
  /**
   * A root-cause label (evaluators/root-cause/root-cause-labels.ts), e.g. RETRIEVAL_MISS: traces whose cause it is as
   * the Failures board counts them (dashboards/source/root-causes.ts attributedRootCauses), the one their reviewers
   * agreed on, else the root-cause evaluator's. With `verdict: "failed"` the list holds what the board counts.
   * UNATTRIBUTED: the board's "without a root-cause label", the failing requests (final verdict) whose cause is none of
   * the labels (no cause, the evaluator's UNATTRIBUTED, a newer evaluator's name: root-causes.ts isUnlabelledRootCause);
   * with another verdict than failed, none.
   */
  rootCause?: string;
  /** started_at at or after (epoch ms). */
  fromMs?: number;
  /** started_at before (epoch ms). */
  toMs?: number;
  /** Case-insensitive substring of the query or the answer. */
  text?: string;
  /** Exactly this trace id, as stored (lower-case hex from the collector): the list's `q=` when it is a trace id (ui/pages/trace-id-address.ts). */
  traceId?: string;
  /** Exactly this Case Result id: the list's `q=` when it is one. */
  caseResultId?: string;
  /** A stored metric (metric_values), with `below` and/or `above`: traces whose value of it is strictly below / above. A trace without a value of it never matches. */
  metric?: string;
  below?: number;
  above?: number;
}

/**
 * Where the next page starts: strictly after this row in the list's order (compareNewestFirst). A row of the list is a
 * stored request, keyed by its tenant, service, UTC day and Case Result id (migration 0007): one Case Result id may
 * have several rows at the same start (a case sent again from another service at the same millisecond, a result
 * rebuilt without a tenant beside its request's row, with the same trace), so the start and the id alone tie, and a
 * page that ended between two such rows skipped the second. The trace id, tenant and service break every tie: no two
 * rows have the same start, id, tenant and service (the day follows from the start).
 */
export interface TraceCursor {
  startedAtMs: number;
  caseResultId: string;
  traceId: string;
  /** The row's tenant as listed ("" when it has none). */
  tenantId: string;
  /** The row's service as listed ("" when it has none). */
  serviceName: string;
}

/**
 * A cursor of start and id alone, as the list gave them out before the tie-breakers (a bookmarked "next" link): the
 * rows strictly older than (start, id), as it was read then. The empty strings sort before every other value, and
 * descending they are last: every row of that start and id is at or before the cursor.
 */
export function cursorOfStartAndId(startedAtMs: number, caseResultId: string): TraceCursor {
  return { startedAtMs, caseResultId, traceId: "", tenantId: "", serviceName: "" };
}

/**
 * A list row carries the first LIST_TEXT_CHARACTERS characters of its query and answer, "…" after a cut; the trace's
 * detail has them whole. A sender may state texts of a megabyte each (within the receiver's attribute bound): whole
 * in every row, a page of 200 rows was ~400 MB of JSON, built on the thread that also receives OTLP, which stalled
 * every tenant's ingest for seconds and answered 500 past the largest string.
 */
export const LIST_TEXT_CHARACTERS = 1000;

/** `text` cut for a list row (see LIST_TEXT_CHARACTERS), never inside a surrogate pair. */
export function listText(text: string | null): string | null {
  if (text === null || text.length <= LIST_TEXT_CHARACTERS) return text;
  const lead = text.charCodeAt(LIST_TEXT_CHARACTERS - 1);
  const end = lead >= 0xd800 && lead <= 0xdbff ? LIST_TEXT_CHARACTERS - 1 : LIST_TEXT_CHARACTERS;
  return `${text.slice(0, end)}…`;
}

export interface TraceSummary {
  caseResultId: string;
  traceId: string;
  runId: string;
  caseId: string;
  datasetId: string;
  serviceName: string;
  tenantId: string;
  route: string;
  qualityStatus: string;
  executionStatus: string;
  /** execution_error.type (none, system_error, timeout, environment_error): with executionStatus, whether the request completed (reviewed-verdict.ts). */
  errorType: string;
  latencyMs: number | null;
  startedAt: string;
  /** The first LIST_TEXT_CHARACTERS characters, "…" after a cut. */
  query: string | null;
  /** The first LIST_TEXT_CHARACTERS characters, "…" after a cut. */
  output: string | null;
  /** The primary root-cause label as the Failures board attributes it (the reviewers' agreed one, else the evaluator's); null when neither gave one. */
  rootCause: string | null;
}

export interface TracePage {
  traces: TraceSummary[];
  /** Null on the last page. */
  next: TraceCursor | null;
}

export interface TraceDetail {
  caseResult: CaseResult;
  datasetId: string;
  /** Every Evaluation Result, ordered by evaluator id, then evaluation result id. */
  evaluationResults: EvaluationResult[];
  evalCase: EvalCase | null;
  /** The trace's raw spans as stored (contracts/raw-spans.ts); null when none were stored (results written by `ragscope eval` without traces, or before migration 0013). */
  rawSpans: StoredRawSpans | null;
}

export interface StoredRawSpans {
  spans: StoredRawSpan[];
  /** Spans the trace had; more than spans.length when the byte budget left some out. */
  spanCount: number;
  truncatedValues: number;
}

/** How many Case Result ids one query of readEvaluationResults takes: the ids are a query parameter, and bounded they keep each request (and a server's URL) small. */
export const BULK_READ_IDS = 1000;

/** Which request of a Case Result to read: the one with this trace id (a case sent again has one per request). */
export interface TraceRequest {
  traceId: string;
}

/** A stored request of a trace id (findByTraceId): the Case Result it opens under (readTrace with its trace id), and where and when it ran. */
export interface TraceLocation {
  caseResultId: string;
  traceId: string;
  tenantId: string;
  serviceName: string;
  startedAt: string;
}

export interface TraceReader {
  listTraces(filter: TraceFilter, page: { after: TraceCursor | null; limit: number }): Promise<TracePage>;
  /**
   * One request of a Case Result with everything stored for it: the newest (the highest row version, then the one
   * written last), or with `request` the newest with that trace id; null when none is stored (or the scope admits none).
   */
  readTrace(caseResultId: string, request?: TraceRequest): Promise<TraceDetail | null>;
  /**
   * The stored requests with this trace id (compared as given: the collector stores lower-case hex), newest first,
   * each Case Result id once, at most `limit`: users arrive with a trace id from their application's logs or APM.
   * A request counts as the list shows it — its row's newest version has this trace id (a case of a run sent again
   * the same day from the same service replaces its earlier request). Usually one; two tenants may send the same
   * trace id, and each has a request of its own. Only requests the reader's scope admits.
   */
  findByTraceId(traceId: string, limit: number): Promise<TraceLocation[]>;
  /**
   * The stored requests of many Case Results, as the list shows them (each row's newest version), per Case Result the
   * one readTrace and readEvaluationResults read first (the highest row version, then the latest start): a label
   * import binds a label that names no request to the one started last at or before it, and the review queue pairs
   * the judge's verdicts with the labels of the request they are of. A few
   * queries per BULK_READ_IDS ids; an id that is not stored, or that the reader's scope does not admit, has no entry.
   */
  findRequestsOfCases(caseResultIds: readonly string[]): Promise<Map<string, TraceLocation[]>>;
  /**
   * The Evaluation Results of many Case Results, each id's as readTrace gives them (the same rows, ordered by
   * evaluator id, then evaluation result id), without the traces' other rows: the review queue's judge agreement
   * and a label import read every labelled case, and one readTrace each (raw spans included) made a queue of
   * 2,000 labels take ~40 s. A few queries per BULK_READ_IDS ids, whatever their number. An id that is not stored,
   * or that the reader's scope does not admit, has no entry; a stored Case Result without results maps to [].
   */
  readEvaluationResults(caseResultIds: readonly string[]): Promise<Map<string, EvaluationResult[]>>;
  /** Every run the reader's Case Results name and every recorded run (run-listing.ts), newest first, at most `limit`. */
  listRuns(limit: number): Promise<RunListing[]>;
}

/** `ids` without repeats, in slices of at most `size`. */
export function inSlices(ids: readonly string[], size: number = BULK_READ_IDS): string[][] {
  const distinct = [...new Set(ids)];
  const slices: string[][] = [];
  for (let start = 0; start < distinct.length; start += size) slices.push(distinct.slice(start, start + size));
  return slices;
}

/** Evaluation Results in readTrace's order: evaluator id, then evaluation result id. */
export function compareEvaluationResults(first: EvaluationResult, second: EvaluationResult): number {
  if (first.evaluator_id !== second.evaluator_id) return first.evaluator_id < second.evaluator_id ? -1 : 1;
  return first.evaluation_result_id < second.evaluation_result_id ? -1 : first.evaluation_result_id > second.evaluation_result_id ? 1 : 0;
}

/**
 * The list's order, newest first: start time, then Case Result id, trace id, tenant and service, each descending — a
 * total order of the list's rows (TraceCursor), so keyset paging never skips or repeats one. The ClickHouse adapter
 * orders by the same columns; the texts compare as it compares them, by their UTF-8 bytes (compareUtf8).
 */
export function compareNewestFirst(first: TraceCursor, second: TraceCursor): number {
  if (first.startedAtMs !== second.startedAtMs) return second.startedAtMs - first.startedAtMs;
  return compareUtf8(second.caseResultId, first.caseResultId) || compareUtf8(second.traceId, first.traceId) || compareUtf8(second.tenantId, first.tenantId) || compareUtf8(second.serviceName, first.serviceName);
}

/**
 * Two texts in the order of their UTF-8 bytes, as the engine compares Strings (that is, by code point). JavaScript's
 * `<` compares UTF-16 code units, which puts a character above U+FFFF (a surrogate pair) before U+E000–U+FFFF.
 */
export function compareUtf8(first: string, second: string): number {
  return first === second ? 0 : Buffer.compare(Buffer.from(first, "utf8"), Buffer.from(second, "utf8"));
}
