/**
 * The Runs board's SQL on the ClickHouse engine (chDB), over two runs written
 * through the store's write port: cases are paired by case_id AND
 * case_version, as `ragscope eval --baseline` pairs them
 * (evaluators/aggregate/paired-cases.ts), and the heuristic judge's values
 * are a row of their own, never the metric's.
 *
 * The store, worked by hand:
 *   run base: same@v1 passed, judged@v1 passed, changed@v1 passed, only_base@v1 passed;
 *   run cand: same@v1 failed, judged@v1 passed, changed@v2 failed, only_cand@v1 failed.
 *   Each case: a rule `rule.check` passed or failed as its verdict, with check_score 1 or 0.
 *   same@v1: the heuristic judge's faithfulness (evaluator_version ending +heuristic) 0.4 in base, 0.6 in cand;
 *   judged@v1: an LLM judge's faithfulness 0.9 in base, 0.7 in cand, and its answer_relevance 0.8 in both.
 *   Each judge records its usage beside (judge_cost …): the heuristic judge's 0, no score for the chart; the LLM
 *   judge's per call, 0.0004 for faithfulness and 0.0002 for answer_relevance: judged@v1's judge_cost is 0.0006 in
 *   each run (one case, its two calls together, as eval and gate count it), not their mean per call 0.0003.
 * Paired (id and version in both): same, judged — 2. Left out: only_base and only_cand, whose ids only one run
 *   has — 2; changed, whose versions differ — 1.
 * Pass rates over the paired cases: base 2/2 = 1, cand 1/2 = 0.5 (over all cases cand's was 1/4).
 * Flipped: same@v1 rule.check passed → failed, regressed; changed is not compared (by case_id alone it flipped too).
 * check_score over the paired cases: base (1 + 1) / 2 = 1, cand (0 + 1) / 2 = 0.5 (cand over all its cases: 0.25).
 * faithfulness: the LLM judge's only — base 0.9, cand 0.7 (1 case each); the heuristic judge's under
 *   "faithfulness (heuristic judge, measurement)": base 0.4, cand 0.6. Mixed, as before, base read 0.65.
 * Each case also: answer.completeness (a heuristic rule, confidence heuristic) completeness 1 when it passed, else
 *   0.5 — over the paired cases base (1 + 1) / 2 = 1, cand (0.5 + 1) / 2 = 0.75, shown as "completeness (heuristic)"
 *   (evaluators/metric-catalog.ts), never under its bare name; check_score, an exact rule's, keeps its name.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { caseResult as caseResultSchema } from "../../../contracts/case-result.js";
import { evaluationResult, type EvaluationResult } from "../../../contracts/evaluation-result.js";
import { readDashboards, type ReportPanel } from "../../../report/dashboard-files.js";
import type { Variables } from "../../../report/grafana-macros.js";
import { executableSql, runQuery, type Frame } from "../../../report/panel-data.js";
import { plannedCaseResult } from "../../support/stored-requests.js";
import { temporaryStore, type TemporaryStore } from "../../support/temporary-store.js";

const MINUTE = 60_000;
const T0 = Math.floor((Date.now() - 86_400_000) / MINUTE) * MINUTE;
const HEURISTIC = "faithfulness (heuristic judge, measurement)";

let store: TemporaryStore;
let panels: ReportPanel[];

interface PlannedCase {
  run: "base" | "cand";
  caseId: string;
  version: string;
  passed: boolean;
  faithfulness?: { value: number; judge: "heuristic" | "llm" };
}

const CASES: PlannedCase[] = [
  { run: "base", caseId: "same", version: "v1", passed: true, faithfulness: { value: 0.4, judge: "heuristic" } },
  { run: "base", caseId: "judged", version: "v1", passed: true, faithfulness: { value: 0.9, judge: "llm" } },
  { run: "base", caseId: "changed", version: "v1", passed: true },
  { run: "base", caseId: "only_base", version: "v1", passed: true },
  { run: "cand", caseId: "same", version: "v1", passed: false, faithfulness: { value: 0.6, judge: "heuristic" } },
  { run: "cand", caseId: "judged", version: "v1", passed: true, faithfulness: { value: 0.7, judge: "llm" } },
  { run: "cand", caseId: "changed", version: "v2", passed: false },
  { run: "cand", caseId: "only_cand", version: "v1", passed: false },
];

function result(caseResultId: string, evaluatorId: string, evaluatorVersion: string, values: Record<string, number>, outcome: "passed" | "failed" | "measured", evaluatedAtMs: number, heuristic = evaluatorVersion.endsWith("+heuristic")): EvaluationResult {
  return evaluationResult.parse({
    evaluation_result_id: `er_${caseResultId}_${evaluatorId}`,
    case_result_id: caseResultId,
    evaluator_id: evaluatorId,
    evaluator_version: evaluatorVersion,
    metric_values: values,
    outcome,
    reason: `${outcome} in the test`,
    confidence: { value: heuristic ? 0.5 : 1, semantics: heuristic ? "heuristic" : "deterministic_rule" },
    review_required: false,
    error_type: "none",
    evaluated_at: new Date(evaluatedAtMs).toISOString(),
  });
}

function written(planned: PlannedCase, index: number) {
  const caseResultId = `cr_${planned.run}_${planned.caseId}_${planned.version}`;
  const startedAtMs = T0 + index * MINUTE;
  const base = plannedCaseResult({ caseResultId, traceId: `${index + 1}`.padStart(32, "0"), runId: planned.run, caseId: planned.caseId, startedAtMs });
  const caseResult = caseResultSchema.parse({ ...base, case_version: planned.version, quality_status: planned.passed ? "passed" : "failed" });
  const evaluatedAt = startedAtMs + 5_000;
  const evaluationResults = [
    result(caseResultId, "rule.check", "1", { check_score: planned.passed ? 1 : 0 }, planned.passed ? "passed" : "failed", evaluatedAt),
    result(caseResultId, "answer.completeness", "2", { completeness: planned.passed ? 1 : 0.5 }, "measured", evaluatedAt, true),
  ];
  // A judge records its usage beside its score (judge-evaluations.ts); the heuristic judge's is 0.
  const usage = { judge_input_tokens: 0, judge_output_tokens: 0, judge_cost: 0 };
  if (planned.faithfulness?.judge === "heuristic") {
    evaluationResults.push(result(caseResultId, "judge.faithfulness", "faithfulness@1+heuristic-faithfulness@1+heuristic", { faithfulness: planned.faithfulness.value, ...usage }, "measured", evaluatedAt));
  }
  if (planned.faithfulness?.judge === "llm") {
    evaluationResults.push(result(caseResultId, "judge.faithfulness", "faithfulness@1+openai-gpt", { faithfulness: planned.faithfulness.value, ...usage, judge_input_tokens: 400, judge_cost: 0.0004 }, "passed", evaluatedAt));
    // A second judged metric of the case: its own call, its own usage.
    evaluationResults.push(result(caseResultId, "judge.answer_relevance", "answer_relevance@1+openai-gpt", { answer_relevance: 0.8, ...usage, judge_input_tokens: 300, judge_cost: 0.0002 }, "passed", evaluatedAt));
  }
  return { caseResult, evaluationResults };
}

const VARIABLES: Variables = { baseline: { value: "base" }, candidate: { value: "cand" } };

async function run(title: string, variables: Variables = VARIABLES): Promise<Frame> {
  const panel = panels.find((candidate) => candidate.title === title);
  assert.ok(panel, `a Runs board panel "${title}"`);
  const context = { fromMs: T0, toMs: T0 + 60 * MINUTE, intervalMs: MINUTE };
  return runQuery(store.store.dashboards, panel.targets[0]!.refId, executableSql(panel.targets[0]!.rawSql, store.connection.database, variables, context));
}

/** A frame's rows as column → value. */
function rows(frame: Frame): Record<string, unknown>[] {
  return Array.from({ length: frame.rows }, (_, index) => Object.fromEntries(frame.fields.map((field) => [field.name, field.values[index]])));
}

const close = (actual: unknown, expected: number) => typeof actual === "number" && Math.abs(actual - expected) < 1e-9;

before(async () => {
  store = await temporaryStore();
  const stored = await store.store.results.write(CASES.map(written));
  assert.ok(stored.ok, stored.ok ? "" : stored.error.message);
  panels = (await readDashboards()).find((dashboard) => dashboard.uid === "ragscope-runs")!.rows.flatMap((row) => row.panels);
});

after(async () => {
  await store.cleanup();
});

describe("the Runs board pairs cases by case_id and case_version", () => {
  test("Pass rates: the paired cases, the cases left out by why, and pass rates over the paired cases", async () => {
    const [passRates] = rows(await run("Pass rates"));
    assert.deepEqual(
      { ...passRates, "Candidate pass rate": undefined },
      {
        "Baseline cases": 4,
        "Candidate cases": 4,
        "Paired cases": 2,
        "Left out: in one run only": 2,
        "Left out: versions differ": 1,
        "Baseline pass rate": 1,
        "Baseline pass rate · cases": 2,
        "Candidate pass rate": undefined,
        "Candidate pass rate · cases": 2,
      },
    );
    assert.ok(close(passRates!["Candidate pass rate"], 0.5), String(passRates!["Candidate pass rate"]));
  });

  test("Cases that flipped: the paired case only, not the case whose versions differ", async () => {
    const flipped = rows(await run("Cases that flipped")).map((row) => [row.case_id, row.case_version, row.evaluator_id, row.baseline_outcome, row.candidate_outcome, row.change]);
    assert.deepEqual(flipped, [["same", "v1", "rule.check", "passed", "failed", "regressed"]]);
  });

  test("Metrics side by side and the score chart: means over the paired cases", async () => {
    const check = rows(await run("Metrics side by side")).find((row) => row.metric === "check_score");
    assert.ok(check && close(check.baseline, 1) && close(check.candidate, 0.5), JSON.stringify(check));
    assert.deepEqual([check.baseline_cases, check.candidate_cases], [2, 2]);
    const bar = rows(await run("Scores, baseline vs candidate")).find((row) => row.metric === "check_score");
    assert.ok(bar && close(bar.Baseline, 1) && close(bar.Candidate, 0.5), JSON.stringify(bar));
  });

  test("one run chosen: nothing to pair it with, its cases are shown whole", async () => {
    const [passRates] = rows(await run("Pass rates", { baseline: { value: "" }, candidate: { value: "cand" } }));
    assert.deepEqual([passRates!["Candidate cases"], passRates!["Candidate pass rate · cases"], passRates!["Paired cases"]], [4, 4, 0]);
    assert.ok(close(passRates!["Candidate pass rate"], 0.25));
  });
});

describe("the Runs board names the heuristic judge's values a measurement", () => {
  test("faithfulness is the LLM judge's alone; the heuristic judge's is a row of its own", async () => {
    const metrics = rows(await run("Metrics side by side"));
    const faithfulness = metrics.find((row) => row.metric === "faithfulness");
    assert.ok(faithfulness && close(faithfulness.baseline, 0.9) && close(faithfulness.candidate, 0.7), JSON.stringify(faithfulness));
    assert.deepEqual([faithfulness.baseline_cases, faithfulness.candidate_cases], [1, 1]);
    const heuristic = metrics.find((row) => row.metric === HEURISTIC);
    assert.ok(heuristic && close(heuristic.baseline, 0.4) && close(heuristic.candidate, 0.6), JSON.stringify(heuristic));
    const bars = rows(await run("Scores, baseline vs candidate"));
    assert.deepEqual(
      bars.filter((row) => String(row.metric).startsWith("faithfulness")).map((row) => row.metric),
      ["faithfulness", HEURISTIC],
    );
    assert.ok(close(bars.find((row) => row.metric === "faithfulness")!.Baseline, 0.9));
    // The judges' usage is no score, the heuristic judge's (all 0, inside [0, 1]) no more than the LLM judge's.
    assert.deepEqual(bars.filter((row) => String(row.metric).startsWith("judge_")), []);
    assert.deepEqual(
      metrics.filter((row) => String(row.metric).startsWith("judge_cost")).map((row) => row.metric),
      ["judge_cost", "judge_cost (heuristic judge, measurement)"],
    );
  });

  test("the judge's cost and tokens are a case's calls together, as eval and gate count them, not a mean per call", async () => {
    const metrics = rows(await run("Metrics side by side"));
    const cost = metrics.find((row) => row.metric === "judge_cost");
    assert.ok(cost && close(cost.baseline, 0.0006) && close(cost.candidate, 0.0006), JSON.stringify(cost));
    assert.deepEqual([cost.baseline_cases, cost.baseline_values, cost.candidate_cases, cost.candidate_values], [1, 1, 1, 1]);
    const tokens = metrics.find((row) => row.metric === "judge_input_tokens");
    assert.ok(tokens && close(tokens.baseline, 700), JSON.stringify(tokens));
  });
});

describe("the Runs board names a heuristic rule's metric so", () => {
  test("completeness is shown as \"completeness (heuristic)\" in the table and the chart, with the same means; an exact rule's metric keeps its name", async () => {
    const metrics = rows(await run("Metrics side by side"));
    assert.equal(metrics.find((row) => row.metric === "completeness"), undefined, "no row under the bare name");
    const completeness = metrics.find((row) => row.metric === "completeness (heuristic)");
    assert.ok(completeness && close(completeness.baseline, 1) && close(completeness.candidate, 0.75), JSON.stringify(completeness));
    assert.deepEqual([completeness.baseline_cases, completeness.candidate_cases], [2, 2]);
    assert.ok(metrics.some((row) => row.metric === "check_score"));
    const bars = rows(await run("Scores, baseline vs candidate"));
    assert.deepEqual(bars.filter((row) => String(row.metric).startsWith("completeness")).map((row) => row.metric), ["completeness (heuristic)"]);
    assert.ok(close(bars.find((row) => row.metric === "completeness (heuristic)")!.Candidate, 0.75));
  });
});
