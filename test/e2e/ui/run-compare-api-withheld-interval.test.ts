/**
 * /api/runs/compare does not answer with an interval it withholds. Over fewer than 10 cases measured in both runs the
 * run comparison withholds the bootstrap interval (experiments/compare/compare-runs.ts: so few make it narrower than
 * the level it claims); the page and `ragscope eval` print the reason instead, but the API answered `low` and `high`
 * beside `intervalWithheld`, so a client could read the interval the other surfaces deliberately do not show. Now they
 * are null there, the reason beside them; the mean difference and pair count stay.
 *
 * `ragscope serve` as a subprocess (test/support/serve-with-ui.ts) over a folder written through the store's own
 * sink: runs "base" and "cand", cases c1..c5 each, a cost per case; read over HTTP with a UI token.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import type { CaseResult } from "../../../contracts/case-result.js";
import type { EvaluationResult } from "../../../contracts/evaluation-result.js";
import { measured, plannedCaseResult, writeToFolder } from "../../support/stored-requests.js";
import { startServeWithUi, type ServeWithUi } from "../../support/serve-with-ui.js";

const TOKEN = "compare-token-0123456789abcdef";
const T0 = Date.parse("2026-05-04T08:00:00.000Z");
const MINUTE = 60_000;

interface Compared {
  comparison: { metrics: { metric: string; interval: { pairs: number; meanDifference: number; low: number | null; high: number | null }; intervalWithheld: string | null }[] };
}

describe("/api/runs/compare over 5 paired cases", () => {
  let folder: string;
  let serve: ServeWithUi | null = null;

  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-compare-withheld-"));
    const batch: { caseResult: CaseResult; evaluationResults: EvaluationResult[] }[] = [];
    let index = 0;
    for (const [run, costs] of [["base", [1, 2, 3, 4, 5]], ["cand", [2, 4, 3, 7, 5]]] as const) {
      for (const [position, cost] of costs.entries()) {
        index += 1;
        const caseResultId = `cr_${run}_c${position + 1}`;
        const startedAtMs = T0 + index * MINUTE;
        batch.push({
          caseResult: { ...plannedCaseResult({ caseResultId, traceId: `${index}`.padStart(32, "0"), runId: run, caseId: `c${position + 1}`, service: "svc", startedAtMs }), quality_status: "passed" },
          evaluationResults: [measured(caseResultId, "performance.usage", { cost }, startedAtMs + 1_000)],
        });
      }
    }
    await writeToFolder(path.join(folder, "chdb"), batch);
    serve = await startServeWithUi(path.join(folder, "chdb"), { RAGSCOPE_UI_TOKENS: `alice=${TOKEN}`, RAGSCOPE_UI_TENANT_TOKENS: "" });
  });
  after(async () => {
    if (serve?.child.exitCode === null) await serve.stop();
    await rm(folder, { recursive: true, force: true });
  });

  test("a withheld interval has no low and high, only the reason; the mean difference and pairs stay", async () => {
    const answer = await fetch(`${serve!.uiUrl}/api/runs/compare?candidate=cand&baseline=base`, { headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(answer.status, 200, await answer.clone().text());
    const compared = (await answer.json()) as Compared;
    const cost = compared.comparison.metrics.find((metric) => metric.metric === "cost");
    assert.ok(cost, JSON.stringify(compared.comparison.metrics));
    assert.match(cost.intervalWithheld ?? "", /^no interval: 5 cases measured in both runs, fewer than 10/);
    assert.equal(cost.interval.pairs, 5);
    assert.ok(Math.abs(cost.interval.meanDifference - 1.2) < 1e-9, String(cost.interval.meanDifference));
    assert.equal(cost.interval.low, null, JSON.stringify(cost));
    assert.equal(cost.interval.high, null, JSON.stringify(cost));
    for (const metric of compared.comparison.metrics) {
      if (metric.intervalWithheld !== null) assert.deepEqual([metric.metric, metric.interval.low, metric.interval.high], [metric.metric, null, null]);
    }
  });
});
