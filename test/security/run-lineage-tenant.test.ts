/**
 * A run's lineage is its tenant's. Before migration 0027 the runs table had
 * no tenant and a tenant reader was admitted to a run's lineage through its
 * own Case Results by run id: tenant acme, knowing that globex ran
 * "globex-release-42", sent one span naming that run id (ragscope.run_id) and
 * read globex's generator model and prompt version in /api/runs, the runs
 * page and the report's Runs board. And the lineage endpoint refused every
 * tenant token (403), since one tenant's record would have replaced another's.
 *
 * As a user meets it: `ragscope eval --tenant globex` records globex's run
 * with `--lineage` values, `ragscope eval` without --tenant records a run
 * without a tenant (as every run stored before 0027 was), then `ragscope
 * serve` runs as a child process with an ingest and a UI token per tenant and
 * an operator token of every tenant; acme sends a span naming each run id.
 * Expected (SECURITY.md, Tenants): acme's reader lists both run ids (its own
 * requests carry them) with no lineage; globex's reader reads globex's; the
 * operator reads both; a run without a tenant is the operator's alone. acme's
 * token records lineage as acme's, beside globex's record of the same id,
 * and may not record it as globex's. Each check could fail: the same pages
 * show the lineage to the readers it belongs to.
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { recordAttack } from "../support/attack-report.js";
import type { ServeWithUi } from "../support/serve-with-ui.js";
import { oneRequestOtlp } from "../support/one-request-otlp.js";
import { sendAsTenant, startTwoTenantServe } from "../support/two-tenant-serve.js";
import { projectRoot, runRagscope, tasksFolder } from "../e2e/experiments/support/run-ragscope.js";

const INGEST_ACME = "ingest-token-of-acme-lineage-41c2";
const INGEST_GLOBEX = "ingest-token-of-globex-lineage-8d0e";
const ALICE = "ui-token-of-alice-at-acme-lineage-5f17";
const BOB = "ui-token-of-bob-at-globex-lineage-a3b9";
const OPERATOR = "ui-token-of-the-operator-lineage-77e0";

const GLOBEX_RUN = "globex-release-42";
/** Globex's earlier run: its Runs board compares two runs of its own. */
const GLOBEX_EARLIER_RUN = "globex-release-41";
const UNTENANTED_RUN = "untenanted-release-7";
/** Globex's lineage: none of it may reach acme's reader. */
const GLOBEX_SECRETS = ["GLOBEX-SECRET-MODEL", "GLOBEX-SECRET-PROMPT"];
const UNTENANTED_SECRET = "UNTENANTED-SECRET-PROMPT";

const dataset = path.join(projectRoot, "test/e2e/experiments/data/split-dataset.yaml");
const task = path.join(tasksFolder, "retrieving-task.ts");

/** One request of tenant acme's application that names `runId`. */
function otlp(traceId: string, runId: string): string {
  return oneRequestOtlp({
    traceId,
    serviceName: "acme-bot",
    spans: [{ name: "rag.request", attributes: { "openinference.span.kind": "CHAIN", "ragscope.stage": "request", "ragscope.run_id": runId, "ragscope.query": "what is the refund window?", "ragscope.answer": "30 days" } }],
  });
}

interface Listed {
  runId: string;
  cases: number;
  lineage: Record<string, unknown> | null;
}

describe("a tenant naming another tenant's run id reads none of that run's lineage", () => {
  let folder: string;
  let dataDir: string;
  let serve: ServeWithUi | null = null;

  const read = (token: string, address: string, init: RequestInit = {}) => fetch(`${serve!.uiUrl}${address}`, { ...init, headers: { authorization: `Bearer ${token}`, "content-type": "application/json" } });
  const runs = async (token: string): Promise<Listed[]> => ((await (await read(token, "/api/runs")).json()) as { runs: Listed[] }).runs;
  const lineageOf = async (token: string, runId: string) => ((await (await read(token, `/api/runs/${runId}/lineage`)).json()) as { lineage: Record<string, unknown> | null }).lineage;
  const put = (token: string, runId: string, lineage: Record<string, unknown>, query = "") => read(token, `/api/runs/${runId}/lineage${query}`, { method: "PUT", body: JSON.stringify({ run_id: runId, started_at: "2026-01-02T00:00:00.000Z", ...lineage }) });

  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-run-lineage-tenant-"));
    dataDir = path.join(folder, "data");
    const environment = { RAGSCOPE_CLICKHOUSE_URL: "" };
    const globex = await runRagscope(["eval", "--dataset", dataset, "--task", task, "--split", "regression", "--tenant", "globex", "--run-id", GLOBEX_RUN, "--lineage", `generator_model=${GLOBEX_SECRETS[0]}`, "--lineage", `prompt_version=${GLOBEX_SECRETS[1]}`, "--data-dir", dataDir], environment);
    assert.notEqual(globex.status, 2, `${globex.stdout}\n${globex.stderr}`);
    const earlier = await runRagscope(["eval", "--dataset", dataset, "--task", task, "--split", "regression", "--tenant", "globex", "--run-id", GLOBEX_EARLIER_RUN, "--lineage", "generator_model=globex-earlier-model", "--data-dir", dataDir], environment);
    assert.notEqual(earlier.status, 2, `${earlier.stdout}\n${earlier.stderr}`);
    const untenanted = await runRagscope(["eval", "--dataset", dataset, "--task", task, "--split", "regression", "--run-id", UNTENANTED_RUN, "--lineage", `prompt_version=${UNTENANTED_SECRET}`, "--data-dir", dataDir], environment);
    assert.notEqual(untenanted.status, 2, `${untenanted.stdout}\n${untenanted.stderr}`);
    serve = await startTwoTenantServe(dataDir, { ingestAcme: INGEST_ACME, ingestGlobex: INGEST_GLOBEX, alice: ALICE, bob: BOB, operator: OPERATOR });
    for (const [traceId, runId] of [["c1000000000000000000000000000001", GLOBEX_RUN], ["c1000000000000000000000000000002", UNTENANTED_RUN]] as const) await sendAsTenant(serve, INGEST_ACME, otlp(traceId, runId));
    // acme's runs list counts its requests from the request rollups, which follow the writes within the rollup
    // refresh: polled (bounded) until both of acme's requests are counted.
    for (let attempt = 0; ; attempt += 1) {
      const listed = await runs(ALICE);
      if ([GLOBEX_RUN, UNTENANTED_RUN].every((runId) => listed.find((run) => run.runId === runId)?.cases === 1)) break;
      if (attempt >= 600) assert.fail(`acme's requests were not listed within 60 s: ${JSON.stringify(listed)}\n${serve.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });

  after(async () => {
    await serve?.stop();
    await rm(folder, { recursive: true, force: true });
  });

  test("acme's reader lists the run ids its requests carry without their lineage; globex's reader and the operator read it", async () => {
    for (const address of ["/api/runs", "/runs", `/api/runs/${GLOBEX_RUN}/lineage`, `/api/runs/${UNTENANTED_RUN}/lineage`, `/traces?run=${GLOBEX_RUN}`]) {
      const answer = await read(ALICE, address);
      assert.equal(answer.status, 200, address);
      const body = await answer.text();
      for (const marker of [...GLOBEX_SECRETS, UNTENANTED_SECRET]) assert.ok(!body.includes(marker), `${address} shows acme's reader "${marker}"`);
    }
    const acme = await runs(ALICE);
    // Its one request each (not globex's two cases, not the untenanted run's two), with no lineage.
    assert.deepEqual(
      acme.filter((run) => [GLOBEX_RUN, UNTENANTED_RUN].includes(run.runId)).map((run) => [run.runId, run.cases, run.lineage]).sort(),
      [
        [GLOBEX_RUN, 1, null],
        [UNTENANTED_RUN, 1, null],
      ],
    );
    assert.equal(await lineageOf(ALICE, GLOBEX_RUN), null);

    const globex = (await runs(BOB)).find((run) => run.runId === GLOBEX_RUN);
    assert.equal(globex?.lineage?.generator_model, GLOBEX_SECRETS[0]);
    assert.equal(globex?.lineage?.prompt_version, GLOBEX_SECRETS[1]);
    assert.equal(globex?.cases, 2, "globex's two cases, not acme's request");
    assert.equal((await lineageOf(BOB, GLOBEX_RUN))?.generator_model, GLOBEX_SECRETS[0]);
    assert.equal((await runs(BOB)).find((run) => run.runId === UNTENANTED_RUN), undefined, "globex has no request of the untenanted run");
    assert.equal((await runs(ALICE)).find((run) => run.runId === GLOBEX_EARLIER_RUN), undefined, "acme has no request of globex's earlier run");

    const operator = await runs(OPERATOR);
    assert.equal(operator.find((run) => run.runId === GLOBEX_RUN)?.lineage?.generator_model, GLOBEX_SECRETS[0]);
    assert.equal(operator.find((run) => run.runId === UNTENANTED_RUN)?.lineage?.prompt_version, UNTENANTED_SECRET, "a run without a tenant is read by readers of every tenant");
    assert.equal((await lineageOf(OPERATOR, UNTENANTED_RUN))?.prompt_version, UNTENANTED_SECRET);
    recordAttack({ attack: "tenant A names tenant B's run id in its spans to read B's run lineage", outcome: "A's runs list, runs page and lineage read show the run without lineage" });
  });

  test("a tenant token records lineage as its tenant's, beside another tenant's record of the same id, and never as another's", async () => {
    const own = await put(ALICE, GLOBEX_RUN, { generator_model: "acme-own-model" });
    assert.equal(own.status, 200, await own.text());
    assert.equal((await lineageOf(ALICE, GLOBEX_RUN))?.generator_model, "acme-own-model");
    assert.equal((await runs(ALICE)).find((run) => run.runId === GLOBEX_RUN)?.lineage?.generator_model, "acme-own-model");
    assert.equal((await lineageOf(BOB, GLOBEX_RUN))?.generator_model, GLOBEX_SECRETS[0], "globex's record is not replaced by acme's");

    const asGlobex = await put(ALICE, GLOBEX_RUN, { generator_model: "acme-posing-as-globex" }, "?tenant=globex");
    assert.equal(asGlobex.status, 403);
    assert.match(((await asGlobex.json()) as { error: string }).error, /this token reads tenant "acme", so it may record a run as one of those tenants only, not as tenant "globex"/);
    assert.equal((await lineageOf(BOB, GLOBEX_RUN))?.generator_model, GLOBEX_SECRETS[0]);

    // The operator's token may name the tenant; without one, the run is recorded without a tenant: its readers alone read it.
    const named = await put(OPERATOR, "operator-run-for-globex", { notes: "recorded by the operator for globex" }, "?tenant=globex");
    assert.equal(named.status, 200, await named.text());
    assert.equal((await lineageOf(BOB, "operator-run-for-globex"))?.notes, "recorded by the operator for globex");
    assert.equal(await lineageOf(ALICE, "operator-run-for-globex"), null);
    const unnamed = await put(OPERATOR, "operator-run", { notes: "the operator's" });
    assert.equal(unnamed.status, 200, await unnamed.text());
    assert.equal((await lineageOf(OPERATOR, "operator-run"))?.notes, "the operator's");
    assert.equal(await lineageOf(BOB, "operator-run"), null);
  });

  test("the report's Runs board, once serve is stopped: acme's shows none of globex's lineage, globex's shows it", async () => {
    await serve!.stop();
    // Each tenant's runs with results: acme's requests name the untenanted run's id too, globex's are its own.
    const board = async (tenant: string, baseline: string) => {
      const file = path.join(folder, `report-${tenant}.html`);
      const report = await runRagscope(["report", "--data-dir", dataDir, "--tenant", tenant, "--baseline", baseline, "--candidate", GLOBEX_RUN, "--out", file], { RAGSCOPE_CLICKHOUSE_URL: "" });
      assert.equal(report.status, 0, report.stdout + report.stderr);
      return readFile(file, "utf8");
    };
    const acme = await board("acme", UNTENANTED_RUN);
    for (const marker of [...GLOBEX_SECRETS, UNTENANTED_SECRET]) assert.ok(!acme.includes(marker), `acme's report shows "${marker}"`);
    assert.match(acme, /acme-own-model/, "acme's own record of the run id is on its board");
    const globex = await board("globex", GLOBEX_EARLIER_RUN);
    assert.match(globex, /GLOBEX-SECRET-MODEL/);
    assert.doesNotMatch(globex, /acme-own-model/);
  });
});
