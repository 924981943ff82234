/**
 * TraceReader in memory: the same filters, order and keyset paging as the ClickHouse adapter, over the in-memory
 * tables. Every stored request is a row of the list (a case sent again is two: request-rows.ts); a request's
 * Evaluation Results and metric values are the ones written with it.
 */
import type { CaseResult } from "../../contracts/case-result.js";
import { evalCaseFor } from "../../contracts/eval-case-tenant.js";
import type { RunListing } from "../ports/run-listing.js";
import type { EvaluationResult } from "../../contracts/evaluation-result.js";
import { compareEvaluationResults, compareNewestFirst, listText, type TraceCursor, type TraceDetail, type TraceFilter, type TraceLocation, type TracePage, type TraceReader, type TraceRequest } from "../ports/trace-reader.js";
import { attributedRootCauseOf, isUnlabelledRootCause, ROOT_CAUSE_EVALUATOR } from "../../dashboards/source/root-causes.js";
import { UNATTRIBUTED } from "../../evaluators/root-cause/root-cause-labels.js";
import { finalVerdictOf } from "../../evaluators/reviewed-verdict.js";
import { labelsOfRequest, type HumanLabel } from "../../evaluators/judge/calibration/human-label.js";
import type { HumanLabelStore } from "../ports/human-label-store.js";
import { caseKey } from "./memory-case-store.js";
import { listedRuns } from "./memory-run-listing.js";
import type { MemoryTables } from "./memory-tables.js";
import { compareNewestRequestFirst, listPosition, newestRequests, writtenWith } from "./request-rows.js";

export class MemoryTraceReader implements TraceReader {
  constructor(
    private readonly tables: MemoryTables,
    private readonly humanLabels: HumanLabelStore,
  ) {}

  private datasetOf(caseResult: CaseResult): string {
    if (caseResult.case_id === "") return "";
    return evalCaseFor(this.tables.evalCases.get(caseKey(caseResult.case_id, caseResult.case_version)), caseResult.rag_observation.tenant_id)?.dataset_id ?? "";
  }

  /** The Evaluation Results written with this request of its Case Result. */
  private evaluationsOf(caseResult: CaseResult): EvaluationResult[] {
    return this.tables.evaluations
      .values()
      .filter((stored) => stored.result.case_result_id === caseResult.case_result_id && writtenWith(stored, caseResult))
      .map((stored) => stored.result);
  }

  /** The request's root cause as the Failures board counts it: its reviewers' agreed one, else the evaluator's (root-causes.ts). */
  private rootCauseOf(caseResult: CaseResult, labels: readonly HumanLabel[]): string | null {
    const results = this.evaluationsOf(caseResult).filter((result) => result.evaluator_id === ROOT_CAUSE_EVALUATOR);
    return attributedRootCauseOf(results, labelsOfRequest(labels, caseResult)).rootCause;
  }

  private matches(caseResult: CaseResult, filter: TraceFilter, labels: readonly HumanLabel[]): boolean {
    const observation = caseResult.rag_observation;
    const startedAtMs = Date.parse(caseResult.started_at);
    if (filter.service !== undefined && (observation.service_name ?? "") !== filter.service) return false;
    if (filter.tenant !== undefined && (observation.tenant_id ?? "") !== filter.tenant) return false;
    if (filter.route !== undefined && (observation.route ?? "") !== filter.route) return false;
    if (filter.runId !== undefined && caseResult.run_id !== filter.runId) return false;
    if (filter.automaticVerdict !== undefined && caseResult.quality_status !== filter.automaticVerdict) return false;
    if (filter.verdict !== undefined && finalVerdictOf(caseResult, labelsOfRequest(labels, caseResult)).verdict !== filter.verdict) return false;
    if (filter.datasetId !== undefined && this.datasetOf(caseResult) !== filter.datasetId) return false;
    if (filter.rootCause === UNATTRIBUTED) {
      // The Failures board's "without a root-cause label": failing, under no label (root-causes.ts isUnlabelledRootCause).
      if (finalVerdictOf(caseResult, labelsOfRequest(labels, caseResult)).verdict !== "failed" || !isUnlabelledRootCause(this.rootCauseOf(caseResult, labels))) return false;
    } else if (filter.rootCause !== undefined && this.rootCauseOf(caseResult, labels) !== filter.rootCause) return false;
    if (filter.fromMs !== undefined && startedAtMs < filter.fromMs) return false;
    if (filter.toMs !== undefined && startedAtMs >= filter.toMs) return false;
    if (filter.traceId !== undefined && caseResult.trace_id !== filter.traceId) return false;
    if (filter.caseResultId !== undefined && caseResult.case_result_id !== filter.caseResultId) return false;
    if (filter.text !== undefined && filter.text !== "") {
      const needle = filter.text.toLowerCase();
      const inQuery = (observation.query ?? "").toLowerCase().includes(needle);
      const inAnswer = (caseResult.output ?? "").toLowerCase().includes(needle);
      if (!inQuery && !inAnswer) return false;
    }
    if (filter.metric !== undefined && (filter.below !== undefined || filter.above !== undefined)) {
      const metric = filter.metric;
      const values = this.evaluationsOf(caseResult)
        .map((result) => result.metric_values[metric])
        .filter((value): value is number => value !== undefined && value !== null && Number.isFinite(value));
      if (!values.some((value) => (filter.below === undefined || value < filter.below) && (filter.above === undefined || value > filter.above))) return false;
    }
    return true;
  }

  async listTraces(filter: TraceFilter, page: { after: TraceCursor | null; limit: number }): Promise<TracePage> {
    // The verdict and the root cause may be the reviewers': their filters read every label, the page's column the page's.
    const filteredByReviews = filter.verdict !== undefined || filter.rootCause !== undefined;
    const labels = filteredByReviews ? await this.humanLabels.list() : [];
    const keyed = this.tables.caseResults
      .values()
      .filter((caseResult) => this.matches(caseResult, filter, labels))
      .map((caseResult) => ({ caseResult, ...listPosition(caseResult) }))
      .filter((entry) => page.after === null || compareNewestFirst(entry, page.after) > 0)
      .sort(compareNewestFirst);
    const selected = keyed.slice(0, page.limit);
    const last = selected[selected.length - 1];
    const pageLabels = filteredByReviews ? labels : await this.humanLabels.list({ caseResultIds: selected.map((entry) => entry.caseResultId) });
    return {
      traces: selected.map(({ caseResult }) => ({
        caseResultId: caseResult.case_result_id,
        traceId: caseResult.trace_id,
        runId: caseResult.run_id,
        caseId: caseResult.case_id,
        datasetId: this.datasetOf(caseResult),
        serviceName: caseResult.rag_observation.service_name ?? "",
        tenantId: caseResult.rag_observation.tenant_id ?? "",
        route: caseResult.rag_observation.route ?? "",
        qualityStatus: caseResult.quality_status,
        executionStatus: caseResult.execution_status,
        errorType: caseResult.execution_error.type,
        latencyMs: caseResult.rag_observation.latency_ms,
        startedAt: new Date(Date.parse(caseResult.started_at)).toISOString(),
        query: listText(caseResult.rag_observation.query),
        output: listText(caseResult.output),
        rootCause: this.rootCauseOf(caseResult, pageLabels),
      })),
      next: keyed.length > page.limit && last !== undefined ? listPosition(last.caseResult) : null,
    };
  }

  async findRequestsOfCases(caseResultIds: readonly string[]): Promise<Map<string, TraceLocation[]>> {
    const wanted = new Set(caseResultIds);
    const found = new Map<string, TraceLocation[]>();
    // One row per request key holds its newest version (memory-tables.ts), as the list shows it; newest first as
    // readTrace picks a case's request.
    const newestFirst = this.tables.caseResults
      .entries()
      .filter((entry) => wanted.has(entry.row.case_result_id))
      .sort(compareNewestRequestFirst);
    for (const { row: caseResult } of newestFirst) found.set(caseResult.case_result_id, [...(found.get(caseResult.case_result_id) ?? []), locationOf(caseResult)]);
    return found;
  }

  async readTrace(caseResultId: string, request?: TraceRequest): Promise<TraceDetail | null> {
    const rows = this.tables.caseResults.entries().filter((entry) => entry.row.case_result_id === caseResultId && (request === undefined || entry.row.trace_id === request.traceId));
    const caseResult = newestRequests(rows).get(caseResultId);
    if (caseResult === undefined) return null;
    const evaluationResults = this.evaluationsOf(caseResult).sort(compareEvaluationResults);
    const evalCase = caseResult.case_id === "" ? null : evalCaseFor(this.tables.evalCases.get(caseKey(caseResult.case_id, caseResult.case_version)), caseResult.rag_observation.tenant_id);
    // The in-memory store keeps no raw spans (it serves tests and `ragscope eval` without a store).
    return structuredClone({ caseResult, datasetId: this.datasetOf(caseResult), evaluationResults, evalCase, rawSpans: null });
  }

  async findByTraceId(traceId: string, limit: number): Promise<TraceLocation[]> {
    // One row per request key holds its newest version (memory-tables.ts), as the list shows it.
    const newestFirst = this.tables.caseResults
      .values()
      .filter((caseResult) => caseResult.trace_id === traceId)
      .map((caseResult) => ({ caseResult, ...listPosition(caseResult) }))
      .sort(compareNewestFirst);
    const found = new Map<string, TraceLocation>();
    for (const { caseResult } of newestFirst) {
      if (found.size >= limit) break;
      if (found.has(caseResult.case_result_id)) continue;
      found.set(caseResult.case_result_id, locationOf(caseResult));
    }
    return [...found.values()];
  }

  async readEvaluationResults(caseResultIds: readonly string[]): Promise<Map<string, EvaluationResult[]>> {
    const wanted = new Set(caseResultIds);
    // Each id's newest request, as readTrace reads it by id alone; one pass over the stored results, whatever the number of ids.
    const newest = newestRequests(this.tables.caseResults.entries().filter((entry) => wanted.has(entry.row.case_result_id)));
    const found = new Map<string, EvaluationResult[]>([...newest.keys()].map((id) => [id, []]));
    for (const stored of this.tables.evaluations.values()) {
      const caseResult = newest.get(stored.result.case_result_id);
      if (caseResult !== undefined && writtenWith(stored, caseResult)) found.get(stored.result.case_result_id)!.push(stored.result);
    }
    for (const results of found.values()) results.sort(compareEvaluationResults);
    return structuredClone(found);
  }

  async listRuns(limit: number): Promise<RunListing[]> {
    return listedRuns(this.tables, limit);
  }
}

/** Where and when a stored request ran, as findByTraceId and findRequestsOfCases give it. */
function locationOf(caseResult: CaseResult): TraceLocation {
  const observation = caseResult.rag_observation;
  return { caseResultId: caseResult.case_result_id, traceId: caseResult.trace_id, tenantId: observation.tenant_id ?? "", serviceName: observation.service_name ?? "", startedAt: new Date(Date.parse(caseResult.started_at)).toISOString() };
}
