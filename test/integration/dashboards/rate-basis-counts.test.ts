/**
 * The counts the RAG quality board shows beside its rates over a subset
 * (dashboards/source/rate-basis.ts) are what those rates stand on: the board's
 * SQL, run on the ClickHouse engine over the seeded dataset, against counts
 * made here from the dataset's own Case Results and Evaluation Results (not
 * from the board's SQL or the rollups):
 * - each layer mean's values: the metric's values from evaluators other than
 *   the heuristic judge (whose scores are a measurement, never averaged in);
 * - the boundary rates' denominators: the requests with both abstention
 *   metrics that were unanswerable (abstained = correct), refused
 *   (abstained), answerable (abstained != correct); the faithfulness values;
 *   the permission-leak values, and retrieval's permission-violation values
 *   beside them;
 * - the dislike rate's requests and those with a last thumbs, the
 *   citation-click rate's cited answers and those with a click;
 * - per time bucket: the business rates' counts summed over the buckets are
 *   the counts over the range.
 * Rates worked by hand from the same rows (the no-answer detection, the
 * dislike rate) are the panel's: the counts beside them are their
 * denominators.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readDashboards, type ReportDashboard, type ReportPanel } from "../../../report/dashboard-files.js";
import type { Variables } from "../../../report/grafana-macros.js";
import { panelIntervalMs } from "../../../report/panel-interval.js";
import { executableSql, runQuery, type Frame } from "../../../report/panel-data.js";
import type { CaseEvaluation } from "../../../evaluators/evaluate-case-result.js";
import { temporaryStore, type TemporaryStore } from "../../support/temporary-store.js";
import { allDatasetVariables, DATASET_END, DATASET_START, seedDashboardDataset, type SeededDataset } from "./dashboard-dataset.js";

let store: TemporaryStore;
let dataset: SeededDataset;
let board: ReportDashboard;

const context = { fromMs: DATASET_START, toMs: DATASET_END, intervalMs: panelIntervalMs(DATASET_START, DATASET_END, 60) };
const variables = (): Variables => allDatasetVariables(dataset.failingTraceId);

function panel(title: string): ReportPanel {
  const found = board.rows.flatMap((row) => row.panels).find((candidate) => candidate.title === title);
  assert.ok(found, `no panel "${title}" on the RAG quality board`);
  return found;
}

async function frames(title: string): Promise<Frame[]> {
  const result: Frame[] = [];
  for (const target of panel(title).targets) result.push(await runQuery(store.store.dashboards, target.refId, executableSql(target.rawSql, store.connection.database, variables(), context)));
  return result;
}

/** A stat panel's columns by name (each stat query has one row). */
async function statColumns(title: string): Promise<Map<string, number | null>> {
  const columns = new Map<string, number | null>();
  for (const frame of await frames(title)) for (const field of frame.fields) columns.set(field.name, field.values[0] as number | null);
  return columns;
}

/** The heuristic judge's rows are a measurement (evaluators/aggregate/dataset-shares.ts): its judge id and "+heuristic" version. */
const isHeuristicJudge = (evaluatorId: string, version: string): boolean => evaluatorId.startsWith("judge.") && version.endsWith("+heuristic");

/** How many values of `metric` the dataset holds, the heuristic judge's left out. */
function valuesOf(metric: string): number {
  return dataset.evaluations
    .flatMap((evaluation) => evaluation.evaluationResults)
    .filter((result) => !isHeuristicJudge(result.evaluator_id, result.evaluator_version))
    .filter((result) => typeof result.metric_values[metric] === "number").length;
}

/** The largest value of `metric` a request's Evaluation Results give it; null without one. */
function largest(evaluation: CaseEvaluation, metric: string): number | null {
  const values = evaluation.evaluationResults.map((result) => result.metric_values[metric]).filter((value): value is number => typeof value === "number");
  return values.length === 0 ? null : Math.max(...values);
}

const lastThumbs = (evaluation: CaseEvaluation): string | undefined =>
  evaluation.caseResult.rag_observation.feedback.filter((entry) => entry.kind === "thumbs_up" || entry.kind === "thumbs_down").at(-1)?.kind;

before(async () => {
  store = await temporaryStore();
  dataset = await seedDashboardDataset(store.connection);
  board = (await readDashboards()).find((candidate) => candidate.uid === "ragscope-rag-quality")!;
});

after(async () => {
  await store.cleanup();
});

describe("the counts beside the board's rates over a subset", () => {
  test("every layer mean says how many values it averages, beside the complete requests", async () => {
    const requests = dataset.evaluations.filter((evaluation) => !evaluation.caseResult.rag_observation.partial_trace).length;
    const metrics: Record<string, Record<string, string>> = {
      Retrieval: { "Hit@1": "hit_at_1", "Recall@5": "recall_at_5", "Recall@10": "recall_at_10", MRR: "mrr", "NDCG@10": "ndcg_at_10" },
      Generation: { Correctness: "answer_correctness", Faithfulness: "faithfulness", Relevance: "answer_relevance", "Completeness (heuristic)": "completeness", "Citation accuracy": "citation_accuracy" },
    };
    for (const [layer, labels] of Object.entries(metrics)) {
      const columns = await statColumns(`${layer}: means over the range`);
      assert.equal(columns.get("Complete requests"), requests, layer);
      for (const [label, metric] of Object.entries(labels)) {
        const expected = valuesOf(metric);
        assert.ok(expected > 0, `${metric}: the dataset has values of it`);
        assert.equal(columns.get(`${label} · values`), expected, `${layer} ${label}`);
      }
      // The dataset has requests without some of the layer's metrics (no gold evidence, no key points): a count that is the requests is caught.
      assert.ok(Object.values(labels).some((metric) => valuesOf(metric) < requests), `${layer}: a metric on some requests only`);
    }
  });

  test("the boundary rates say their denominators", async () => {
    const pairs = dataset.evaluations
      .map((evaluation) => ({ abstained: largest(evaluation, "abstained"), correct: largest(evaluation, "abstention_correct") }))
      .filter((pair) => pair.abstained !== null && pair.correct !== null);
    const expected = {
      "No-answer detection (heuristic) · unanswerable": pairs.filter((pair) => pair.abstained === pair.correct).length,
      "Correct refusals (heuristic) · refusals": pairs.filter((pair) => pair.abstained === 1).length,
      "False refusals (heuristic) · answerable": pairs.filter((pair) => pair.abstained !== pair.correct).length,
      "Hallucination rate · with faithfulness": valuesOf("faithfulness"),
      "Permission leaks · checked": valuesOf("permission_leak_rate"),
      "Permission violations in retrieval · checked": valuesOf("permission_violation_rate"),
    };
    const columns = await statColumns("Boundaries: rates over the range");
    for (const [column, count] of Object.entries(expected)) {
      assert.ok(count > 0, `${column}: the dataset exercises it`);
      assert.equal(columns.get(column), count, column);
    }
    // Each rate is its numerator over the count beside it (abstention pairs worked by hand from their definitions).
    const unanswerable = pairs.filter((pair) => pair.abstained === pair.correct);
    assert.ok(Math.abs(columns.get("No-answer detection (heuristic)")! - unanswerable.filter((pair) => pair.abstained === 1).length / unanswerable.length) < 1e-12);
    // Retrieval's violations beside the leaks: the mean of the requests' shares of denied chunks, as the gate reads it.
    const violations = dataset.evaluations.map((evaluation) => largest(evaluation, "permission_violation_rate")).filter((value): value is number => value !== null);
    assert.ok(violations.some((value) => value > 0), "the dataset has requests whose retrieval returned a denied chunk");
    assert.ok(Math.abs(columns.get("Permission violations in retrieval")! - violations.reduce((sum, value) => sum + value, 0) / violations.length) < 1e-12);
  });

  test("the dislike and citation-click rates say what requests they are over", async () => {
    const complete = dataset.evaluations.filter((evaluation) => !evaluation.caseResult.rag_observation.partial_trace);
    const withThumbs = complete.filter((evaluation) => lastThumbs(evaluation) !== undefined).length;
    const cited = complete.filter((evaluation) => (evaluation.caseResult.rag_observation.citations ?? []).length > 0);
    const clicked = cited.filter((evaluation) => evaluation.caseResult.rag_observation.feedback.some((entry) => entry.kind === "citation_click")).length;
    assert.ok(withThumbs > 0 && withThumbs < complete.length && clicked > 0 && clicked < cited.length, "the dataset exercises both");
    for (const title of ["Business: rates over the range", "User behaviour over the range"]) {
      const columns = await statColumns(title);
      assert.equal(columns.get("Dislike rate · requests"), complete.length, title);
      assert.equal(columns.get("Dislike rate · with a thumbs"), withThumbs, title);
      const disliked = complete.filter((evaluation) => lastThumbs(evaluation) === "thumbs_down").length;
      assert.ok(Math.abs(columns.get("Dislike rate")! - disliked / complete.length) < 1e-12, title);
    }
    const behaviour = await statColumns("User behaviour over the range");
    assert.equal(behaviour.get("Citation clicks · cited answers"), cited.length);
    assert.equal(behaviour.get("Citation clicks · with a click"), clicked);
  });

  test("per time bucket, the business rates' counts add up to the counts over the range", async () => {
    const range = await statColumns("Business: rates over the range");
    const buckets = await frames("Business over time: what each bucket stands on");
    const sum = (column: string): number => {
      const field = buckets.flatMap((frame) => frame.fields).find((candidate) => candidate.name === column);
      assert.ok(field, `no column ${column}`);
      return field.values.reduce<number>((total, value) => total + Number(value ?? 0), 0);
    };
    assert.equal(sum("Task success · judged"), range.get("Task success · judged"));
    assert.equal(sum("Dislike rate · requests"), range.get("Dislike rate · requests"));
    // Sessions (with an id) of the online traffic, at their first request: none in the dataset spans two buckets' counts twice.
    const sessions = new Set(dataset.evaluations.map((evaluation) => evaluation.caseResult.rag_observation.session_id).filter((id): id is string => id !== null && id !== "")).size;
    assert.equal(sum("First-contact resolution · sessions"), sessions);
    // Over time, every bucket holds only its counts: no bucket column is a rate.
    assert.ok(buckets.flatMap((frame) => frame.fields).every((field) => field.name === "time" || field.name.includes(" · ")));
  });
});
