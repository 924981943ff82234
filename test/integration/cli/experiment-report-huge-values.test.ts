/**
 * `ragscope experiment report` as a subprocess over a stored experiment whose
 * cost metric was written with values a trace may state but no statistic can
 * square (1e200 and up: a variance of them is beyond the largest number). The
 * report stopped with "t quantile needs at least 1 degree of freedom, got NaN"
 * (and the web UI's Experiments page with it). The store now keeps no value
 * beyond 2^53 − 1 (core/largest-measurement.ts), so the cost is not compared
 * and every other metric of the experiment is compared as before; the
 * report's own guard for such values is tested on the report itself
 * (test/unit/evaluators/experiments/experiment-report.test.ts). 20 users per
 * arm, one request each, written through the store's own write port.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { caseResult } from "../../../contracts/case-result.js";
import type { ExperimentReport } from "../../../evaluators/experiments/experiment-report.js";
import { measured, plannedCaseResult, writeToFolder } from "../../support/stored-requests.js";

const ragscope = fileURLToPath(new URL("../../../bin/ragscope.js", import.meta.url));
const PER_ARM = 20;
const EXPERIMENT = "exp-huge-costs";
const start = Date.parse("2026-11-01T09:00:00.000Z");

function run(dataDir: string, ...flags: string[]) {
  const result = spawnSync(process.execPath, [ragscope, "experiment", "report", "--id", EXPERIMENT, "--data-dir", dataDir, ...flags], { encoding: "utf8", env: { ...process.env, RAGSCOPE_CLICKHOUSE_URL: "" } });
  assert.equal(result.status, 0, result.stderr);
  return result.stdout;
}

describe("ragscope experiment report on a metric whose values are too large for the statistics", () => {
  let dataDir: string;

  before(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), "ragscope-experiment-huge-values-"));
    const batch = (["control", "treatment"] as const).flatMap((variant, arm) =>
      Array.from({ length: PER_ARM }, (_, index) => {
        const number = arm * PER_ARM + index;
        const caseResultId = `cr_huge_${number}`;
        const planned = plannedCaseResult({ caseResultId, traceId: (number + 1).toString(16).padStart(32, "0"), sessionId: `session-${number}`, startedAtMs: start + number * 1_000 });
        const stored = caseResult.parse({ ...planned, rag_observation: { ...planned.rag_observation, user_id: `user-${number}`, experiment_id: EXPERIMENT, experiment_variant: variant } });
        // Costs of 1e200 to 5e200 in both arms; latencies that differ plainly between the arms.
        const values = { cost: Number(`${1 + (index % 5)}e200`), latency_ms: (variant === "control" ? 1_000 : 2_000) + (index % 5) * 10 };
        return { caseResult: stored, evaluationResults: [measured(caseResultId, "performance.usage", values, start + number * 1_000 + 3_000)] };
      }),
    );
    await writeToFolder(dataDir, batch);
  });

  after(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  test("the cost, stored as not available, is not compared; the latency is compared as before", () => {
    const report = JSON.parse(run(dataDir, "--json")) as ExperimentReport;
    // Values beyond 2^53 − 1 are no values in the store (core/largest-measurement.ts), so none reaches the statistics.
    const cost = report.metrics.find((metric) => metric.metric === "cost");
    assert.ok(cost === undefined || cost.values.every((item) => item.observations === 0 && item.value === null), JSON.stringify(cost));
    const latency = report.metrics.find((metric) => metric.metric === "latency_ms")!.comparisons.find((item) => item.variant === "treatment")!;
    assert.equal(latency.indication, "worse", "twice the latency in every request of the treatment");
    assert.doesNotMatch(run(dataDir), /e\+200/, "no value of 1e200 is shown");
  });
});
