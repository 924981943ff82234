/**
 * The four insert bodies of one sink write, in TabSeparated (tab-separated.ts),
 * built straight from the evaluations: the rows of result-rows.ts, without an
 * object per row. A case has ~60 metric values, and each of their rows repeats
 * the case's and the evaluation result's columns, so those parts are encoded
 * once per case and once per result and joined into every row. The columns
 * and values are exactly those of `toRows` (a unit test holds the two to the
 * same text), which the judge stage still writes with.
 *
 * `batchBodies` serialises each payload document once, derives the
 * deduplication token from them and writes every body in one pass.
 *
 * Cost (test/bench/sink-rows.bench.ts, issue 13): serialising the payloads
 * (JSON.stringify, ~23 Evaluation Results a case) is now most of it and is
 * what the payload columns hold, so it stays. The bytes written are held to a
 * recording of the previous implementation (test/data/sink-insert-bodies).
 */
import { createHash } from "node:crypto";
import type { CaseEvaluation } from "../../evaluators/evaluate-case-result.js";
import { hasValue, rowVersion, storedMetricValue } from "./result-rows.js";
import { TextHasher } from "./text-hasher.js";
import { TabSeparatedBody } from "./tab-separated-body.js";
import { tabSeparatedArrayItem as arrayItem, tabSeparatedField as field, tabSeparatedName as name } from "./tab-separated.js";

export const caseResultColumns = [
  "case_result_id",
  "run_id",
  "case_id",
  "trace_id",
  "case_version",
  "dataset_id",
  "service_name",
  "tenant_id",
  "route",
  "execution_status",
  "quality_status",
  "partial_trace",
  "output",
  "latency_ms",
  "started_at",
  "completed_at",
  "payload",
  "version",
] as const;

export const evaluationResultColumns = [
  "evaluation_result_id",
  "case_result_id",
  "run_id",
  "case_id",
  "trace_id",
  "evaluator_id",
  "evaluator_version",
  "outcome",
  "reason",
  "review_required",
  "error_type",
  "started_at",
  "evaluated_at",
  "payload",
  "version",
  "not_applicable_metrics",
] as const;

export const metricValueColumns = [
  "metric",
  "case_result_id",
  "evaluator_id",
  "evaluator_version",
  "evaluation_result_id",
  "value",
  "outcome",
  "run_id",
  "case_id",
  "trace_id",
  "case_version",
  "dataset_id",
  "service_name",
  "tenant_id",
  "route",
  "ts",
  "evaluated_at",
  "version",
] as const;

export const traceSpanColumns = ["case_result_id", "trace_id", "tenant_id", "service_name", "started_at", "span_count", "stored_span_count", "truncated_values", "spans", "version"] as const;

/** The four insert bodies of a batch, and its deduplication token. */
export interface BatchBodies {
  /**
   * The insert deduplication token (one per table is derived from it): a hash
   * of what the batch says, without the evaluation times. A retried insert of
   * the same batch, or a replay that rebuilds the same results, is dropped by
   * the server; a re-evaluation whose results changed (more spans, another
   * trace for the same run and case) is not. It hashes the payload documents,
   * each evaluation result's with its `evaluated_at` value blanked — the same
   * text as serialising the result with `evaluated_at: ""`; the pattern can
   * only match a real key, since inside a JSON string its quotes are escaped.
   */
  token: string;
  metricValues: Buffer;
  /** Lines of metricValues. */
  metricRows: number;
  evaluationResults: Buffer;
  /** Empty when no case carries raw spans. */
  traceSpans: Buffer;
  caseResults: Buffer;
}

/**
 * Every body of a batch in one pass over its cases. Each payload document is
 * serialised, hashed and written into its body at once, then dropped: the
 * texts (~75 KB a case) die young. Built table by table, as before, they lived
 * from the first body to the last across the inserts between them, so the
 * collector moved them to the old generation and marked them there.
 */
export function batchBodies(batch: readonly CaseEvaluation[], datasetOf: (caseId: string, caseVersion: string) => string, clockMs: number | ((evaluation: CaseEvaluation) => number)): BatchBodies {
  // One clock value for the batch, or one per evaluation: a retried evaluation keeps its first write's (store/row-version-clock.ts).
  const clockMsOf = typeof clockMs === "number" ? () => clockMs : clockMs;
  const hash = createHash("sha256");
  const hasher = new TextHasher(hash);
  const metricValues = new TabSeparatedBody();
  const evaluationResults = new TabSeparatedBody();
  const traceSpans = new TabSeparatedBody();
  const caseResults = new TabSeparatedBody();
  for (const evaluation of batch) {
    const result = evaluation.caseResult;
    const observation = result.rag_observation;
    const version = String(rowVersion(clockMsOf(evaluation), !observation.partial_trace));
    const runId = field(result.run_id);
    const caseId = field(result.case_id);
    const traceId = field(result.trace_id);
    const startedAt = field(result.started_at);
    const payload = JSON.stringify(result);
    hasher.add(payload);
    // run_id … route: the columns every metric row repeats after `outcome`.
    const context = `${runId}\t${caseId}\t${traceId}\t${field(result.case_version)}\t${field(datasetOf(result.case_id, result.case_version))}\t${field(observation.service_name ?? "")}\t${field(observation.tenant_id ?? "")}\t${field(observation.route ?? "")}`;
    // Metrics without a value get no row, unless this evaluation may replace an earlier one (result-rows.ts hasValue).
    const tombstones = evaluation.replacesEarlier === true;
    for (const item of evaluation.evaluationResults) {
      const resultPayload = JSON.stringify(item);
      // The evaluation time blanked without copying the whole payload: the same text `replace` gave (first match only).
      const pattern = `"evaluated_at":${JSON.stringify(item.evaluated_at)}`;
      const at = resultPayload.indexOf(pattern);
      if (at < 0) hasher.add(resultPayload);
      else {
        hasher.add(resultPayload.slice(0, at));
        hasher.add(`"evaluated_at":""`);
        hasher.add(resultPayload.slice(at + pattern.length));
      }
      // The Array(String) of metrics without a value, as tabSeparatedStringArray writes it.
      let notApplicable = "";
      for (const metric in item.metric_values) if (!hasValue(item.metric_values[metric])) notApplicable = notApplicable === "" ? arrayItem(metric) : `${notApplicable},${arrayItem(metric)}`;
      const evaluatedAt = field(item.evaluated_at);
      evaluationResults.addWithJson(
        `${field(item.evaluation_result_id)}\t${field(item.case_result_id)}\t${runId}\t${caseId}\t${traceId}\t${name(item.evaluator_id)}\t${name(item.evaluator_version)}\t${name(item.outcome)}\t${field(item.reason)}\t${item.review_required ? 1 : 0}\t${name(item.error_type)}\t${startedAt}\t${evaluatedAt}\t`,
        resultPayload,
        `\t${version}\t[${notApplicable}]`,
      );
      const identity = `${field(item.case_result_id)}\t${name(item.evaluator_id)}\t${name(item.evaluator_version)}\t${field(item.evaluation_result_id)}`;
      const outcome = name(item.outcome);
      const tail = `${context}\t${startedAt}\t${evaluatedAt}\t${version}`;
      for (const metric in item.metric_values) {
        const value = item.metric_values[metric];
        if (tombstones || hasValue(value)) metricValues.add(`${name(metric)}\t${identity}\t${field(storedMetricValue(value))}\t${outcome}\t${tail}`);
      }
    }
    // The raw spans of the cases that carry them (migration 0013).
    const raw = evaluation.rawSpans;
    if (raw !== undefined) {
      traceSpans.addWithJson(
        `${field(result.case_result_id)}\t${traceId}\t${field(observation.tenant_id ?? "")}\t${field(observation.service_name ?? "")}\t${startedAt}\t${raw.spanCount}\t${raw.storedSpanCount}\t${raw.truncatedValues}\t`,
        { items: raw.spans },
        `\t${version}`,
      );
    }
    caseResults.addWithJson(
      `${field(result.case_result_id)}\t${context}\t${field(result.execution_status)}\t${field(result.quality_status)}\t${observation.partial_trace ? 1 : 0}\t${field(result.output ?? "")}\t${field(observation.latency_ms)}\t${startedAt}\t${field(result.completed_at)}\t`,
      payload,
      `\t${version}`,
    );
  }
  hasher.flush();
  return {
    token: hash.digest("hex"),
    metricValues: metricValues.bytes(),
    metricRows: metricValues.lines,
    evaluationResults: evaluationResults.bytes(),
    traceSpans: traceSpans.bytes(),
    caseResults: caseResults.bytes(),
  };
}
