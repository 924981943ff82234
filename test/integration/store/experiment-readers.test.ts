/**
 * The experiment reader of both stores, on the same written Case Results:
 * the in-memory store answers what the ClickHouse adapter answers (ids by
 * number of requests, the complete requests of one experiment, their measured
 * metric values; partial results and requests without an experiment left
 * out; the heuristic judge's values marked as such); the ClickHouse reader for a tenant scope sees only that tenant's
 * experiments. And the web UI on the in-memory store lists the experiments
 * and serves the same report as on ClickHouse. Beside them, the Quality
 * board's behaviour requests: the earliest complete ones of the range, up to
 * a limit, saying when they were cut.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { CaseResult } from "../../../contracts/case-result.js";
import type { EvaluationResult } from "../../../contracts/evaluation-result.js";
import type { ExperimentData } from "../../../store/ports/experiment-reader.js";
import { toBehaviourRequest } from "../../../evaluators/behaviour/behaviour-request.js";
import { createMemoryStore, type MemoryStore } from "../../../store/memory/memory-store.js";
import { createUiApp } from "../../../ui/ui-app.js";
import { onlineCaseResult } from "../../support/online-case-results.js";
import { temporaryStore, type TemporaryStore } from "../../support/temporary-store.js";

const TOKEN = "experiment-token-0123456789abcd";
const access = { tokens: new Map([[TOKEN, "olga"]]) };
const NOW = Date.parse("2026-07-10T00:00:00Z");

function request(index: number, fields: { experiment: string | null; variant: string | null; tenant: string; user: string; partial?: boolean }): CaseResult {
  const traceId = (index + 1).toString(16).padStart(32, "a");
  const base = onlineCaseResult({ traceId, query: `question ${index}`, tenantId: fields.tenant, output: `answer ${index}` });
  const started = Date.parse("2026-07-08T09:00:00Z") + index * 60_000;
  return {
    ...base,
    started_at: new Date(started).toISOString(),
    completed_at: new Date(started + 2000).toISOString(),
    rag_observation: { ...base.rag_observation, experiment_id: fields.experiment, experiment_variant: fields.variant, user_id: fields.user, session_id: `session-${fields.user}`, partial_trace: fields.partial ?? false, feedback: [] },
  };
}

function ruleResult(caseResult: CaseResult, value: number): EvaluationResult {
  return {
    evaluation_result_id: `er_${caseResult.case_result_id}`,
    case_result_id: caseResult.case_result_id,
    evaluator_id: "rule.answer_present",
    evaluator_version: "1",
    metric_values: { answer_present: value, not_measured: null },
    outcome: value === 1 ? "passed" : "failed",
    reason: "scripted",
    evidence_refs: [],
    confidence: { value: 1, semantics: "deterministic_rule" },
    review_required: false,
    error_type: "none",
    evaluated_at: "2026-07-08T10:00:00.000Z",
  };
}

/** A faithfulness verdict of the heuristic judge (its version ends with "+heuristic") or of a language-model judge. */
function judgeResult(caseResult: CaseResult, heuristic: boolean): EvaluationResult {
  return {
    ...ruleResult(caseResult, 1),
    evaluation_result_id: `er_judge_${caseResult.case_result_id}`,
    evaluator_id: "judge.faithfulness",
    evaluator_version: heuristic ? "faithfulness@3+heuristic" : "faithfulness@3+openai:gpt-4o-mini",
    metric_values: { faithfulness: 0.9 },
    confidence: heuristic ? { value: 0.5, semantics: "heuristic" } : { value: 0.9, semantics: "judge_self_report" },
  };
}

const requests: CaseResult[] = [
  ...Array.from({ length: 8 }, (_, index) => request(index, { experiment: "exp-a", variant: index % 2 === 0 ? "control" : "treatment", tenant: "acme", user: `u${index % 4}` })),
  request(8, { experiment: "exp-b", variant: "control", tenant: "beta", user: "v1" }),
  request(9, { experiment: "exp-b", variant: "treatment", tenant: "beta", user: "v2" }),
  request(10, { experiment: "exp-a", variant: "control", tenant: "acme", user: "u9", partial: true }),
  request(11, { experiment: null, variant: null, tenant: "acme", user: "u0" }),
];

const ids = (data: ExperimentData) => ({
  caseResults: data.caseResults.map((item) => item.case_result_id),
  metricValues: data.metricValues,
});

describe("experiment readers: in memory as on ClickHouse", () => {
  let clickhouse: TemporaryStore;
  let memory: MemoryStore;

  before(async () => {
    clickhouse = await temporaryStore();
    memory = createMemoryStore();
    const batch = requests.map((caseResult, index) => ({ caseResult, evaluationResults: [ruleResult(caseResult, index % 3 === 0 ? 0 : 1), judgeResult(caseResult, index % 2 === 0)] }));
    for (const store of [memory, clickhouse.store]) assert.ok((await store.results.write(batch)).ok);
  });
  after(async () => {
    await clickhouse?.cleanup();
  });

  test("the same experiment ids and the same data, partial results and unmeasured values left out", async () => {
    assert.deepEqual(await memory.experiments.experimentIds(), ["exp-a", "exp-b"]);
    assert.deepEqual(await clickhouse.store.experiments.experimentIds(), ["exp-a", "exp-b"]);
    for (const id of ["exp-a", "exp-b", "no-such"]) {
      const [inMemory, onClickHouse] = [await memory.experiments.experiment(id), await clickhouse.store.experiments.experiment(id)];
      assert.deepEqual(ids(inMemory), ids(onClickHouse), `${id}: the same requests and metric values, in the same order`);
    }
    const experimentA = await memory.experiments.experiment("exp-a");
    assert.equal(experimentA.caseResults.length, 8, "the partial result is not a request");
    assert.deepEqual(new Set(experimentA.metricValues.map((item) => item.metric)), new Set(["answer_present", "faithfulness"]));
    // The heuristic judge's values are told apart, as the gate tells them (evaluator_version ending "+heuristic").
    assert.deepEqual(
      experimentA.metricValues.filter((item) => item.metric === "faithfulness").map((item) => item.heuristicJudgement),
      [true, false, true, false, true, false, true, false],
    );
    assert.ok(experimentA.metricValues.filter((item) => item.metric === "answer_present").every((item) => !item.heuristicJudgement), "a rule's value is never the heuristic judge's");
  });

  test("a tenant's reader on ClickHouse sees its experiments only", async () => {
    const acme = clickhouse.store.scoped(["acme"]).experiments;
    assert.deepEqual(await acme.experimentIds(), ["exp-a"]);
    assert.equal((await acme.experiment("exp-b")).caseResults.length, 0);
    assert.equal((await acme.experiment("exp-b")).metricValues.length, 0);
    assert.equal((await acme.experiment("exp-a")).caseResults.length, 8);
    assert.deepEqual(await clickhouse.store.scoped([]).experiments.experimentIds(), []);
  });

  test("the UI on the in-memory store lists the experiments and serves the report ClickHouse serves", async () => {
    const onMemory = createUiApp({ store: memory, access, now: () => NOW });
    const onClickHouse = createUiApp({ store: clickhouse.store, access, now: () => NOW });
    const get = async (app: ReturnType<typeof createUiApp>, url: string) => {
      const response = await app.request(url, { headers: { authorization: `Bearer ${TOKEN}` } });
      return { status: response.status, text: await response.text() };
    };
    assert.deepEqual(JSON.parse((await get(onMemory, "/api/experiments")).text), { experiments: ["exp-a", "exp-b"] });
    const page = await get(onMemory, "/experiments");
    assert.equal(page.status, 200);
    assert.match(page.text, /<li data-experiment="exp-a"><a href="\/experiments\/exp-a">exp-a<\/a><\/li>/);
    const fromMemory = await get(onMemory, "/api/experiments/exp-a?unit=session");
    assert.equal(fromMemory.status, 200, fromMemory.text);
    assert.deepEqual(JSON.parse(fromMemory.text), JSON.parse((await get(onClickHouse, "/api/experiments/exp-a?unit=session")).text));
    const report = JSON.parse(fromMemory.text) as { traffic: { variant: string; requests: number }[]; metrics: { metric: string }[] };
    assert.deepEqual(report.traffic.map((item) => [item.variant, item.requests]), [["control", 4], ["treatment", 4]]);
    assert.ok(report.metrics.some((metric) => metric.metric === "answer_present"), "the rule metric is compared");
    const reportPage = await get(onMemory, "/experiments/exp-a");
    assert.equal(reportPage.status, 200);
    assert.match(reportPage.text, /<tr data-metric="answer_present" data-variant="treatment"/);
  });

  test("behaviour requests of a range: complete ones, earliest first, cut at the limit and saying so, tenant-scoped", async () => {
    const scope = { fromMs: Date.parse("2026-07-08T09:00:00Z"), toMs: Date.parse("2026-07-08T10:00:00Z"), bucketSeconds: 60 };
    const all = await clickhouse.store.quality.behaviourRequests(scope, 100);
    assert.equal(all.truncated, false);
    assert.deepEqual(all.requests, requests.filter((item) => !item.rag_observation.partial_trace).map(toBehaviourRequest), "what toBehaviourRequest reads of each whole Case Result");
    const cut = await clickhouse.store.quality.behaviourRequests(scope, 3);
    assert.equal(cut.truncated, true);
    assert.deepEqual(cut.requests.map((item) => item.traceId), requests.slice(0, 3).map((item) => item.trace_id));
    const exact = await clickhouse.store.quality.behaviourRequests(scope, 11);
    assert.equal(exact.truncated, false, "exactly the limit is not a cut");
    const beta = await clickhouse.store.scoped(["beta"]).quality.behaviourRequests(scope, 100);
    assert.deepEqual(beta.requests.map((item) => item.traceId), requests.filter((item) => item.rag_observation.tenant_id === "beta").map((item) => item.trace_id));
  });
});
