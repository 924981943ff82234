/**
 * RunReader over the in-memory tables, with the ClickHouse adapter's orderings and counting rules: a run's case is
 * its newest request (request-rows.ts), with the Evaluation Results and metric values written with it.
 */
import type { RunLineage } from "../../contracts/run-lineage.js";
import { evalCaseFor } from "../../contracts/eval-case-tenant.js";
import type { EvaluatedCase } from "../../evaluators/aggregate/index.js";
import type { FailedEvaluation, MetricAverage, RunReader, RunSummary, RunTenantCount, StoredSpan } from "../ports/run-reader.js";
import { isHeuristicJudgement } from "../../evaluators/case-verdict.js";
import { finalVerdictOf } from "../../evaluators/reviewed-verdict.js";
import { labelsOfRequest } from "../../evaluators/judge/calibration/human-label.js";
import type { HumanLabelStore } from "../ports/human-label-store.js";
import { caseKey } from "./memory-case-store.js";
import { readRecords, type MemoryTables } from "./memory-tables.js";
import { metricValueOf, newestRequests, writtenWith } from "./request-rows.js";

const compare = (first: string, second: string) => (first < second ? -1 : first > second ? 1 : 0);

export class MemoryRunReader implements RunReader {
  constructor(
    private readonly tables: MemoryTables,
    private readonly humanLabels: HumanLabelStore,
  ) {}

  /** The run's Case Results with their final verdict (evaluators/reviewed-verdict.ts) as quality_status, and who reviewed it. */
  private async finalCaseResultsOf(runId: string) {
    const caseResults = this.caseResultsOf(runId);
    const labels = await this.humanLabels.list({ caseResultIds: caseResults.map((result) => result.case_result_id) });
    return caseResults.map((result) => {
      const final = finalVerdictOf(result, labelsOfRequest(labels, result));
      return { caseResult: { ...structuredClone(result), quality_status: final.verdict }, reviewedBy: final.reviewedBy };
    });
  }

  /** The run's current Case Results: each case's newest request. */
  private caseResultsOf(runId: string) {
    return [...newestRequests(this.tables.caseResults.entries().filter((entry) => entry.row.run_id === runId)).values()];
  }

  /** The Evaluation Results written with the run's current Case Results. */
  private evaluationsOf(runId: string) {
    const current = newestRequests(this.tables.caseResults.entries().filter((entry) => entry.row.run_id === runId));
    return this.tables.evaluations.values().filter((entry) => {
      const caseResult = entry.runId === runId ? current.get(entry.result.case_result_id) : undefined;
      return caseResult !== undefined && writtenWith(entry, caseResult);
    });
  }

  async loadRunCases(runId: string): Promise<EvaluatedCase[]> {
    const evaluations = this.evaluationsOf(runId);
    return (await this.finalCaseResultsOf(runId))
      .sort((first, second) => compare(first.caseResult.case_id, second.caseResult.case_id))
      .map(({ caseResult, reviewedBy }) => ({
        caseResult,
        ...(reviewedBy.length > 0 ? { reviewedBy } : {}),
        evaluationResults: evaluations.filter((entry) => entry.result.case_result_id === caseResult.case_result_id).map((entry) => structuredClone(entry.result)),
        evalCase: caseResult.case_id === "" ? null : structuredClone(evalCaseFor(this.tables.evalCases.get(caseKey(caseResult.case_id, caseResult.case_version)), caseResult.rag_observation.tenant_id)),
      }));
  }

  async countCaseResults(runId: string): Promise<number> {
    return this.caseResultsOf(runId).length;
  }

  async countRunTenants(runId: string): Promise<RunTenantCount[]> {
    const counts = new Map<string, number>();
    for (const result of this.caseResultsOf(runId)) {
      const tenant = result.rag_observation.tenant_id ?? "";
      counts.set(tenant, (counts.get(tenant) ?? 0) + 1);
    }
    return [...counts].sort(([first], [second]) => compare(first, second)).map(([tenant, results]) => ({ tenant, results }));
  }

  async readRunSummary(runId: string): Promise<RunSummary> {
    const caseResults = (await this.finalCaseResultsOf(runId)).map((entry) => entry.caseResult);
    const count = (status: string) => caseResults.filter((result) => result.quality_status === status).length;
    const byMetric = new Map<string, { evaluatorId: string; values: (number | null)[] }>();
    const current = new Map(caseResults.map((result) => [result.case_result_id, result]));
    const currentValues = this.tables.metricValues.values().filter((entry) => {
      const caseResult = entry.runId === runId ? current.get(entry.caseResultId) : undefined;
      return caseResult !== undefined && metricValueOf(entry, caseResult);
    });
    for (const row of currentValues) {
      const group = byMetric.get(row.metric) ?? { evaluatorId: row.evaluatorId, values: [] };
      // A metric two evaluators write (a renamed evaluator, a judge beside a rule) is shown under the least id, as the
      // ClickHouse reader's min(evaluator_id): not whichever row came first.
      if (compare(row.evaluatorId, group.evaluatorId) < 0) group.evaluatorId = row.evaluatorId;
      group.values.push(row.value);
      byMetric.set(row.metric, group);
    }
    const metrics: MetricAverage[] = [...byMetric].map(([metric, group]) => {
      const present = group.values.filter((value): value is number => value !== null);
      return { metric, evaluatorId: group.evaluatorId, mean: present.length === 0 ? null : present.reduce((total, value) => total + value, 0) / present.length, applicable: present.length, notApplicable: group.values.length - present.length };
    });
    metrics.sort((first, second) => compare(first.evaluatorId, second.evaluatorId) || compare(first.metric, second.metric));
    const verdicts = new Map(caseResults.map((result) => [result.case_result_id, result.quality_status]));
    const failures: FailedEvaluation[] = [];
    for (const { caseId, result } of this.evaluationsOf(runId)) {
      const caseStatus = verdicts.get(result.case_result_id);
      const failedOrErrored = result.outcome === "failed" || result.outcome === "error";
      if (caseStatus === undefined || !(failedOrErrored || result.review_required)) continue;
      failures.push({
        caseId,
        evaluatorId: result.evaluator_id,
        reason: result.reason,
        caseStatus,
        heuristicJudgement: isHeuristicJudgement(result),
        reviewSignal: !failedOrErrored,
      });
    }
    failures.sort((first, second) => compare(first.caseId, second.caseId) || compare(first.evaluatorId, second.evaluatorId));
    return {
      runId,
      cases: caseResults.length,
      passed: count("passed"),
      failed: count("failed"),
      reviewRequired: count("review_required"),
      unjudged: count("unjudged"),
      notEvaluated: count("not_evaluated"),
      partial: caseResults.filter((result) => result.rag_observation.partial_trace).length,
      metrics,
      failures,
    };
  }

  async readRun(runId: string): Promise<RunLineage | null> {
    // This store reads every tenant: of the records of the run id, the one RunReader.readRun names.
    const run = readRecords(this.tables.runs.values().filter((record) => record.lineage.run_id === runId)).get(runId);
    return run === undefined ? null : structuredClone(run.lineage);
  }

  async storedSpan(): Promise<StoredSpan | null> {
    const times = this.tables.caseResults.values().map((result) => Date.parse(result.started_at));
    if (times.length === 0) return null;
    return { firstMs: Math.min(...times), lastMs: Math.max(...times), requests: times.length };
  }
}
