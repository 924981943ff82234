/**
 * `ragscope experiment report` as a subprocess over a stored experiment whose
 * metrics sit at their bounds, as online metrics often do: 30 users per arm,
 * one request each, written through the store's own write port.
 * - citation_validity falls from 1 in every control request to 0 in every
 *   treatment request (statsmodels' proportions_ztest: p ≈ 9.5e-15): a
 *   regression, reported "worse" — it used to read "not enough data" with no
 *   size at all, because a control rate of exactly 1 could not be sized;
 * - token counts with one value in every request of both arms: the same
 *   value is no difference, two values a difference in every request, and
 *   the report says there is no variance (it said "fewer than two
 *   observations in an arm");
 * - heuristic metrics are labelled "(heuristic)" and decide nothing, even
 *   when their numbers alone would say "worse"; number_agreement, a heuristic
 *   the seed defines as a rule metric, still decides, as in the release gate.
 * The reference values are in test/data/experiments/boundary-sample-size.json
 * (statsmodels, boundary-sample-size.py).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { caseResult } from "../../../contracts/case-result.js";
import type { ExperimentReport } from "../../../evaluators/experiments/experiment-report.js";
import { measured, plannedCaseResult, writeToFolder } from "../../support/stored-requests.js";

const ragscope = fileURLToPath(new URL("../../../bin/ragscope.js", import.meta.url));
const PER_ARM = 30;
const start = Date.parse("2026-11-01T09:00:00.000Z");

interface Reference {
  rate: { baseline: number; change: number; alpha: number; power: number; per_arm: number }[];
  all_to_none: { p_value: number };
}

/** Per arm: the metric values of request `index` (0 … 29). */
function valuesOf(variant: "control" | "treatment", index: number): Record<string, Record<string, number>> {
  const control = variant === "control";
  return {
    "citation.accuracy": { citation_validity: control ? 1 : 0 },
    "performance.usage": { input_tokens: 812, total_tokens: 932, output_tokens: control ? 120 : 95, latency_ms: 900 + ((index * 37) % 200) },
    // Claim overlap falls from ~0.9 to ~0.3: past any size, its numbers alone say "worse" — it must not decide.
    "online.groundedness": { heuristic_groundedness: (control ? 0.9 : 0.3) + ((index % 5) - 2) / 100 },
    "online.prompt_injection": { prompt_injection_detected: control ? 0 : 1 },
    // A heuristic the seed defines as a rule metric: it decides, as the release gate lets it.
    "answer.fact_agreement": { number_agreement: (control ? 0.95 : 0.4) + ((index % 3) - 1) / 100 },
  };
}

function run(dataDir: string, ...flags: string[]) {
  return spawnSync(process.execPath, [ragscope, "experiment", "report", "--id", "exp-bounds", "--data-dir", dataDir, ...flags], { encoding: "utf8", env: { ...process.env, RAGSCOPE_CLICKHOUSE_URL: "" } });
}

describe("ragscope experiment report on metrics at their bounds", () => {
  let dataDir: string;
  let report: ExperimentReport;
  let text: string;
  let reference: Reference;

  before(async () => {
    reference = JSON.parse(await readFile(fileURLToPath(new URL("../../data/experiments/boundary-sample-size.json", import.meta.url)), "utf8")) as Reference;
    dataDir = await mkdtemp(path.join(os.tmpdir(), "ragscope-experiment-bounds-"));
    const batch = (["control", "treatment"] as const).flatMap((variant, arm) =>
      Array.from({ length: PER_ARM }, (_, index) => {
        const number = arm * PER_ARM + index;
        const caseResultId = `cr_bounds_${number}`;
        const planned = plannedCaseResult({ caseResultId, traceId: (number + 1).toString(16).padStart(32, "0"), sessionId: `session-${number}`, startedAtMs: start + number * 1_000 });
        const stored = caseResult.parse({ ...planned, rag_observation: { ...planned.rag_observation, user_id: `user-${number}`, experiment_id: "exp-bounds", experiment_variant: variant } });
        const evaluationResults = Object.entries(valuesOf(variant, index)).map(([evaluatorId, values]) => measured(caseResultId, evaluatorId, values, start + number * 1_000 + 3_000));
        return { caseResult: stored, evaluationResults };
      }),
    );
    await writeToFolder(dataDir, batch);
    const json = run(dataDir, "--json");
    assert.equal(json.status, 0, json.stderr);
    report = JSON.parse(json.stdout) as ExperimentReport;
    const plain = run(dataDir);
    assert.equal(plain.status, 0, plain.stderr);
    text = plain.stdout;
  });

  after(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  const comparisonOf = (metric: string) => {
    const found = report.metrics.find((item) => item.metric === metric);
    assert.ok(found, `${metric} is in the report`);
    const comparison = found.comparisons.find((item) => item.variant === "treatment");
    assert.ok(comparison, `${metric} is compared`);
    return comparison;
  };

  test("a validity rate falling from 1 to 0 is a regression: worse, decided early, with the planned size statsmodels gives", () => {
    const validity = comparisonOf("citation_validity");
    assert.equal(validity.comparison?.method, "two_proportion_z");
    const p = validity.comparison!.pValue!;
    assert.ok(Math.abs(p - reference.all_to_none.p_value) <= reference.all_to_none.p_value * 1e-5, `p ${p} vs statsmodels ${reference.all_to_none.p_value}`);
    // Control rate 1, default --mde 0.1: the size for 1 → 0.9.
    const sized = reference.rate.find((item) => item.baseline === 1 && item.change === 0.1)!;
    assert.equal(validity.requiredObservations, Math.ceil(sized.per_arm));
    assert.equal(validity.verdict, "worse");
    assert.equal(validity.decidedEarly, true);
    assert.match(report.decisions[0]!, /worse on [^;]*citation_validity \(early: p < 0\.001 before the planned sample\)/);
    assert.match(text, /citation_validity \[rule, rate\]: control 1\.0000 \(n 30\) · treatment 0\.0000 \(n 30\)\n {4}treatment − control: -1\.0000 .*needs 75 per arm\) → worse \(early: p < 0\.001 before the planned sample\)/);
  });

  test("with a larger minimum effect (--mde 0.5) 30 per arm is the planned sample, and the same fall is decided there", () => {
    // --mde 0.5: 1 → 0.5, statsmodels' size ≈ 11.8 — 30 per arm is enough, nothing early about it.
    const larger = run(dataDir, "--json", "--mde", "0.5");
    assert.equal(larger.status, 0, larger.stderr);
    const validity = (JSON.parse(larger.stdout) as ExperimentReport).metrics.find((item) => item.metric === "citation_validity")!.comparisons[0]!;
    const sized = reference.rate.find((item) => item.baseline === 1 && item.change === 0.5)!;
    assert.deepEqual([validity.verdict, validity.decidedEarly, validity.requiredObservations], ["worse", false, Math.ceil(sized.per_arm)]);
  });

  test("token counts with no variance: the same value is no difference, two values a difference; the report says why", () => {
    for (const metric of ["input_tokens", "total_tokens"]) {
      const same = comparisonOf(metric);
      assert.deepEqual([same.comparison, same.verdict], [null, "no_difference"], metric);
      assert.match(same.note ?? "", /no variance in either arm/);
    }
    const output = comparisonOf("output_tokens");
    // Tokens are informational (metric-direction.ts): a difference, direction not judged.
    assert.deepEqual([output.comparison, output.verdict], [null, "changed"]);
    assert.match(text, /input_tokens \[rule, mean\]: control 812\.0 \(n 30\) · treatment 812\.0 \(n 30\)\n {4}treatment − control: no variance in either arm: every request is 812 in both, so no difference → no significant difference/);
    assert.match(text, /output_tokens \[rule, mean\][^\n]*\n {4}treatment − control: no variance in either arm: every control request is 120, every treatment request 95 — a difference in every request \(exact permutation test over 30 and 30 requests, p=1\.7e-17\) → changed/);
  });

  test("heuristic metrics are labelled (heuristic) and decide nothing; a seed-defined rule heuristic decides", () => {
    for (const metric of ["heuristic_groundedness", "prompt_injection_detected"]) {
      const comparison = comparisonOf(metric);
      assert.equal(comparison.verdict, "heuristic_not_decided", metric);
      assert.equal(comparison.indication, "worse", `${metric}: its numbers alone say worse`);
      assert.match(text, new RegExp(`  ${metric} \\(heuristic\\) \\[rule, (rate|mean)\\]`));
    }
    assert.match(text, /heuristic_groundedness \(heuristic\)[^\n]*\n[^\n]*→ not decided \(heuristic\); its numbers alone: worse/);
    const decision = report.decisions[0]!;
    assert.doesNotMatch(decision.split("; heuristics")[0]!, /heuristic_groundedness|prompt_injection_detected/, "no heuristic is among the decided metrics");
    assert.match(decision, /heuristics, not decided \(a reason to look, never a verdict\): worse on heuristic_groundedness, prompt_injection_detected/);
    assert.equal(comparisonOf("number_agreement").verdict, "worse");
    assert.match(text, /number_agreement \(heuristic\) \[rule, mean\]/);
  });
});
