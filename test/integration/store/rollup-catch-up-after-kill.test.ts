/**
 * The rollups after a process died between a write and its rollup refresh
 * (store/clickhouse/metric-rollups.ts, catchUp). `ragscope serve` runs as a
 * subprocess with an hour between refreshes; `ragscope eval --endpoint` sends
 * it a run of 5 cases and waits until its read API lists them: its summary
 * (/api/runs/<id>/summary) and the runs list (its cases counted from the
 * results themselves, store/clickhouse/clickhouse-run-listing.ts) count 5.
 * serve is then killed with SIGKILL, so it never refreshes: read from the
 * store, request_rollups holds nothing of the run. The next serve on the
 * folder — the next open — must list the run with its 5 cases at once, and,
 * read back from the store, every
 * request rollup count and the rule metrics' rollup counts must equal what
 * case_results FINAL and metric_values FINAL count.
 *
 * Before the catch-up a run written just before the process died stayed
 * missing from the runs list and the report's request counts for good (QA:
 * "Requests 73" with 74 stored).
 */
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { openClickHouse } from "../../../store/clickhouse/clickhouse-connection.js";
import { startServeWithUi, type ServeWithUi } from "../../support/serve-with-ui.js";
import { queryRows } from "../../support/temporary-store.js";
import { runRagscope } from "../../e2e/experiments/support/run-ragscope.js";

const TASK_MODULE = `export default async function task(evalCase) { return "The answer to " + evalCase.case_id + "."; }\n`;
const SERVE_ENVIRONMENT = { RAGSCOPE_ROLLUP_REFRESH_MS: "3600000", RAGSCOPE_QUIET_PERIOD_MS: "200" };

interface ListedRun {
  runId: string;
  cases: number;
}

describe("rollups after a process was killed before its rollup refresh", () => {
  let folder: string;
  let dataDir: string;
  let serve: ServeWithUi | null = null;

  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-rollup-catch-up-"));
    dataDir = path.join(folder, "store");
    await writeFile(path.join(folder, "task.mjs"), TASK_MODULE);
  });
  after(async () => {
    serve?.child.kill("SIGKILL");
    await serve?.exited;
    await rm(folder, { recursive: true, force: true });
  });

  const runs = async (uiUrl: string) => ((await (await fetch(`${uiUrl}/api/runs`)).json()) as { runs: ListedRun[] }).runs;
  const receiverOf = (running: ServeWithUi) => {
    const url = /OTLP\/HTTP on (http:\/\/[\d.:]+)\/v1\/traces/.exec(running.output())?.[1];
    assert.ok(url !== undefined, running.output());
    return url;
  };
  const datasetOf = (caseIds: string[]) => ({ dataset_id: "catch_up", dataset_version: "1", cases: caseIds.map((id) => ({ case_id: id, case_version: "1", input: `question ${id}` })) });
  /** eval --endpoint runs only cases the collector holds: every case of both runs, pushed before serve opens the folder. */
  async function pushCases(caseIds: string[]): Promise<void> {
    const dataset = path.join(folder, "all-cases.json");
    await writeFile(dataset, JSON.stringify(datasetOf(caseIds)));
    const pushed = await runRagscope(["dataset", "push", dataset, "--data-dir", dataDir]);
    assert.equal(pushed.status, 0, pushed.stdout + pushed.stderr);
  }
  async function evaluateRemotely(running: ServeWithUi, runId: string, caseIds: string[]): Promise<void> {
    const dataset = path.join(folder, `${runId}.json`);
    await writeFile(dataset, JSON.stringify(datasetOf(caseIds)));
    const result = await runRagscope(["eval", "--dataset", dataset, "--task", path.join(folder, "task.mjs"), "--run-id", runId, "--endpoint", receiverOf(running), "--read-api", running.uiUrl]);
    // These cases carry no gold data and no gate is given; what matters is that every case was run and listed.
    assert.match(result.stdout, new RegExp(`^Run ${runId}: ${caseIds.length} cases`, "m"), result.stdout + result.stderr);
  }

  test("the next open refreshes what the killed process wrote: the runs list and every rollup count equal the raw rows", async () => {
    await pushCases(["warm_one", "lost_1", "lost_2", "lost_3", "lost_4", "lost_5"]);
    serve = await startServeWithUi(dataDir, SERVE_ENVIRONMENT);
    // The first write is refreshed at once (no refresh ran before); the next ones wait the interval, an hour.
    await evaluateRemotely(serve, "warm", ["warm_one"]);
    const uiUrl = serve.uiUrl;
    while (!(await runs(uiUrl)).some((run) => run.runId === "warm" && run.cases === 1)) await new Promise((resolve) => setTimeout(resolve, 100));

    await evaluateRemotely(serve, "lost", ["lost_1", "lost_2", "lost_3", "lost_4", "lost_5"]);
    // Stored, and not yet in the rollups: the state a kill now leaves behind.
    assert.equal(((await (await fetch(`${uiUrl}/api/runs/lost/summary`)).json()) as { cases: number }).cases, 5);
    // The run is listed from the lineage eval recorded, its cases counted from the results as soon as they are written.
    assert.equal((await runs(uiUrl)).find((run) => run.runId === "lost")?.cases, 5);

    serve.child.kill("SIGKILL");
    await serve.exited;
    serve = null;

    // What the kill left: the results stored, the rollups without them (the refresh was an hour away).
    const killed = await openClickHouse({ url: null, username: "default", password: "", database: "ragscope", dataPath: dataDir });
    try {
      const rolledUp = await queryRows<{ requests: string }>(killed, "SELECT toString(count()) AS requests FROM {{database}}.request_rollups FINAL WHERE run_id = 'lost'");
      assert.deepEqual(rolledUp, [{ requests: "0" }], "the rollup refresh is an hour away");
    } finally {
      await killed.close();
    }

    // The next open: listed at once, counted from the rollups.
    serve = await startServeWithUi(dataDir, SERVE_ENVIRONMENT);
    const listed = new Map((await runs(serve.uiUrl)).map((run) => [run.runId, run.cases]));
    assert.equal(listed.get("lost"), 5);
    assert.equal(listed.get("warm"), 1);
    serve.child.kill("SIGTERM");
    assert.equal(await serve.exited, 0, serve.output());
    serve = null;

    const connection = await openClickHouse({ url: null, username: "default", password: "", database: "ragscope", dataPath: dataDir });
    try {
      // Per run: all requests and each final verdict (no review was saved, so the verdict is quality_status).
      const rolledUp = await queryRows<Record<string, string>>(
        connection,
        `SELECT run_id, toString(sum(all_requests)) AS requests, toString(sum(passed_verdicts)) AS passed, toString(sum(failed_verdicts)) AS failed,
                toString(sum(review_required_verdicts)) AS review, toString(sum(unjudged_verdicts)) AS unjudged, toString(sum(not_evaluated_verdicts)) AS not_evaluated
         FROM {{database}}.request_rollups FINAL GROUP BY run_id ORDER BY run_id`,
      );
      const raw = await queryRows<Record<string, string>>(
        connection,
        `SELECT run_id, toString(count()) AS requests, toString(countIf(quality_status = 'passed')) AS passed, toString(countIf(quality_status = 'failed')) AS failed,
                toString(countIf(quality_status = 'review_required')) AS review, toString(countIf(quality_status = 'unjudged')) AS unjudged, toString(countIf(quality_status = 'not_evaluated')) AS not_evaluated
         FROM {{database}}.case_results FINAL GROUP BY run_id ORDER BY run_id`,
      );
      assert.deepEqual(rolledUp, raw);
      assert.deepEqual(raw.map((row) => [row.run_id, row.requests]), [["lost", "5"], ["warm", "1"]]);
      // The rule metrics' values (the heuristic judge's are left out of the rollups by design): counts per run and metric.
      const metricRollups = await queryRows<{ run_id: string; metric: string; values: string }>(
        connection,
        `SELECT run_id, metric, toString(sum(value_count)) AS values FROM {{database}}.metric_rollups FINAL
         WHERE metric IN (SELECT DISTINCT metric FROM {{database}}.metric_values WHERE NOT startsWith(evaluator_id, 'judge.'))
         GROUP BY run_id, metric HAVING sum(value_count) > 0 ORDER BY run_id, metric`,
      );
      const metricValues = await queryRows<{ run_id: string; metric: string; values: string }>(
        connection,
        `SELECT run_id, metric, toString(count(value)) AS values FROM {{database}}.metric_values FINAL
         WHERE NOT startsWith(evaluator_id, 'judge.') GROUP BY run_id, metric HAVING count(value) > 0 ORDER BY run_id, metric`,
      );
      assert.ok(metricValues.some((row) => row.run_id === "lost"), "the lost run has rule metric values");
      assert.deepEqual(metricRollups, metricValues);
    } finally {
      await connection.close();
    }
  });
});
