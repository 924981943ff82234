/**
 * A tenant's requests naming another tenant's run id do not decide that run's release gate. Any tenant's spans may
 * name any run id (`ragscope.run_id`), and the operator's `gate` without --tenant counted every tenant's Case
 * Results of the run id: tenant globex's run "globex-release-42" (two slow requests, 5 s each) fails a gate of
 * `p50_latency_ms <= 1000`; tenant acme sent three fast requests (10 ms) naming the same run id, and the median of
 * the five was acme's 10 ms — the operator's gate passed globex's release (exit 0).
 *
 * As a user meets it: `ragscope eval` without --tenant stores an operator's run (results without a tenant), then
 * `ragscope serve` runs as a child process with an ingest token per tenant; globex sends its runs, acme sends
 * requests naming globex's run id and the operator's; acme's UI token records lineage "running" for globex's
 * run "globex-release-40". Once serve stops, the built CLI runs `gate` and `report` on the same data folder.
 *
 * Expected (SECURITY.md, Tenants; README, gate): the unscoped gate on a run, or with a --baseline, whose results
 * carry several tenant values ('' is one) exits 2 naming each tenant and its count and the two ways on: --tenant,
 * or --all-tenants to gate on all of them deliberately (then p50 = 10 ms: exit 0, and it says whose it counted).
 * `gate --tenant globex` fails the run on globex's two requests (exit 1); an unscoped gate on globex's run that
 * only globex's results carry decides as before (exit 1). Another tenant's "running" lineage of the run id stops
 * the unscoped gate (exit 2, advising --tenant), and `--tenant globex` reads globex's record alone (none here) and
 * decides. `report` without --tenant is written (exit 0) and says in the terminal and at the top of the report
 * that the run holds both tenants' results, with the counts; `report --tenant globex` says nothing of it.
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { recordAttack } from "../support/attack-report.js";
import { listedOnceStored, listsTraces } from "../support/listed-traces.js";
import { oneRequestOtlp } from "../support/one-request-otlp.js";
import type { ServeWithUi } from "../support/serve-with-ui.js";
import { sendAsTenant, startTwoTenantServe } from "../support/two-tenant-serve.js";
import { projectRoot, runRagscope, tasksFolder } from "../e2e/experiments/support/run-ragscope.js";

const INGEST_ACME = "ingest-token-of-acme-mixed-run-6b1e";
const INGEST_GLOBEX = "ingest-token-of-globex-mixed-run-0c5a";
const ALICE = "ui-token-of-alice-at-acme-mixed-run-94d3";
const BOB = "ui-token-of-bob-at-globex-mixed-run-2e8f";
const OPERATOR = "ui-token-of-the-operator-mixed-run-d170";

/** Globex's run that acme's requests also name. */
const GLOBEX_RUN = "globex-release-42";
/** Globex's run that only globex's requests name. */
const GLOBEX_OWN_RUN = "globex-release-41";
/** Globex's run whose lineage acme records as "running". */
const GLOBEX_LINEAGE_RUN = "globex-release-40";
/** The operator's `ragscope eval` run (results without a tenant) that one request of acme's names. */
const OPERATOR_RUN = "operator-release-7";

const SLOW_MS = 5_000;
const FAST_MS = 10;
const ENVIRONMENT = { RAGSCOPE_CLICKHOUSE_URL: "" };

interface Sent {
  traceId: string;
  token: string;
  runId: string;
  durationMs: number;
}

const SENT: readonly Sent[] = [
  { traceId: "d2000000000000000000000000000001", token: INGEST_GLOBEX, runId: GLOBEX_RUN, durationMs: SLOW_MS },
  { traceId: "d2000000000000000000000000000002", token: INGEST_GLOBEX, runId: GLOBEX_RUN, durationMs: SLOW_MS },
  { traceId: "d2000000000000000000000000000003", token: INGEST_GLOBEX, runId: GLOBEX_OWN_RUN, durationMs: SLOW_MS },
  { traceId: "d2000000000000000000000000000004", token: INGEST_GLOBEX, runId: GLOBEX_OWN_RUN, durationMs: SLOW_MS },
  { traceId: "d2000000000000000000000000000005", token: INGEST_GLOBEX, runId: GLOBEX_LINEAGE_RUN, durationMs: SLOW_MS },
  { traceId: "a2000000000000000000000000000001", token: INGEST_ACME, runId: GLOBEX_RUN, durationMs: FAST_MS },
  { traceId: "a2000000000000000000000000000002", token: INGEST_ACME, runId: GLOBEX_RUN, durationMs: FAST_MS },
  { traceId: "a2000000000000000000000000000003", token: INGEST_ACME, runId: GLOBEX_RUN, durationMs: FAST_MS },
  { traceId: "a2000000000000000000000000000004", token: INGEST_ACME, runId: OPERATOR_RUN, durationMs: FAST_MS },
];

function otlp(sent: Sent): string {
  return oneRequestOtlp({
    traceId: sent.traceId,
    serviceName: sent.token === INGEST_ACME ? "acme-bot" : "globex-bot",
    durationMs: sent.durationMs,
    spans: [{ name: "rag.request", attributes: { "openinference.span.kind": "CHAIN", "ragscope.stage": "request", "ragscope.run_id": sent.runId, "ragscope.query": "what is the refund window?", "ragscope.answer": "30 days" } }],
  });
}

describe("a run id whose results several tenants sent is not gated on their mix unless asked", () => {
  let folder: string;
  let dataDir: string;
  let gates: string;
  let serve: ServeWithUi | null = null;

  const gate = (...args: string[]) => runRagscope(["gate", "--gates", gates, "--data-dir", dataDir, ...args], ENVIRONMENT);

  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-mixed-tenant-run-"));
    dataDir = path.join(folder, "data");
    gates = path.join(folder, "gates.yaml");
    await writeFile(gates, 'performance:\n  p50_latency_ms: "<= 1000"\n');
    const operatorRun = await runRagscope(
      ["eval", "--dataset", path.join(projectRoot, "test/e2e/experiments/data/split-dataset.yaml"), "--task", path.join(tasksFolder, "retrieving-task.ts"), "--split", "regression", "--run-id", OPERATOR_RUN, "--data-dir", dataDir],
      ENVIRONMENT,
    );
    assert.notEqual(operatorRun.status, 2, `${operatorRun.stdout}\n${operatorRun.stderr}`);
    serve = await startTwoTenantServe(dataDir, { ingestAcme: INGEST_ACME, ingestGlobex: INGEST_GLOBEX, alice: ALICE, bob: BOB, operator: OPERATOR });
    for (const sent of SENT) await sendAsTenant(serve, sent.token, otlp(sent));
    const recorded = await fetch(`${serve.uiUrl}/api/runs/${GLOBEX_LINEAGE_RUN}/lineage`, {
      method: "PUT",
      headers: { authorization: `Bearer ${ALICE}`, "content-type": "application/json" },
      body: JSON.stringify({ run_id: GLOBEX_LINEAGE_RUN, started_at: "2026-01-02T00:00:00.000Z", completion: { status: "running", planned_cases: 100, stored_cases: null } }),
    });
    assert.equal(recorded.status, 200, await recorded.text());
    // Polled (bounded) until every request sent is stored, as the operator's list shows them.
    await listedOnceStored(serve, listsTraces(SENT.map((sent) => sent.traceId)), { token: OPERATOR });
    await serve.stop();
  });

  after(async () => {
    await serve?.stop();
    await rm(folder, { recursive: true, force: true });
  });

  test("the operator's gate on globex's run that acme's requests name is not decided: exit 2 naming both tenants' counts and the flags", async () => {
    const mixed = await gate("--run", GLOBEX_RUN);
    assert.equal(mixed.status, 2, mixed.stdout + mixed.stderr);
    assert.match(mixed.stderr, /run "globex-release-42" holds the results of 2 tenants \(tenant "acme" 3 results, tenant "globex" 2 results\)/);
    assert.match(mixed.stderr, /--tenant NAME/);
    assert.match(mixed.stderr, /--all-tenants to gate on every tenant's results of --run globex-release-42 together/);
    assert.doesNotMatch(mixed.stdout, /Release gate for run/, "no decision is printed");

    const globex = await gate("--run", GLOBEX_RUN, "--tenant", "globex");
    assert.equal(globex.status, 1, globex.stdout + globex.stderr);
    assert.match(globex.stdout, /Release gate for run globex-release-42 \(2 cases\)/);
    assert.match(globex.stdout, /performance\.p50_latency_ms\s+5000/);

    // Deliberately every tenant's: acme's three fast requests make the median theirs, and the output says whose.
    const everyTenant = await gate("--run", GLOBEX_RUN, "--all-tenants");
    assert.equal(everyTenant.status, 0, everyTenant.stdout + everyTenant.stderr);
    assert.match(everyTenant.stdout, /Release gate for run globex-release-42 \(5 cases\)/);
    assert.match(everyTenant.stdout, /Note: --all-tenants: run globex-release-42 counted every tenant's results together: tenant "acme" 3 results, tenant "globex" 2 results/);

    const both = await gate("--run", GLOBEX_RUN, "--tenant", "globex", "--all-tenants");
    assert.equal(both.status, 2, both.stdout + both.stderr);
    assert.match(both.stderr, /--tenant and --all-tenants cannot be given together/);
    recordAttack({ attack: "tenant A sends passing requests naming tenant B's run id to pass the operator's gate (no --tenant) of B's failing run", outcome: "the unscoped gate exits 2 naming both tenants and counts; --tenant B fails the run; --all-tenants is the deliberate mix" });
  });

  test("a run only one tenant's results carry is gated without --tenant as before; a baseline several tenants carry is not used", async () => {
    const own = await gate("--run", GLOBEX_OWN_RUN);
    assert.equal(own.status, 1, own.stdout + own.stderr);
    assert.match(own.stdout, /Release gate for run globex-release-41 \(2 cases\)/);
    assert.doesNotMatch(own.stdout, /Note: --all-tenants/);

    const mixedBaseline = await gate("--run", GLOBEX_OWN_RUN, "--baseline", GLOBEX_RUN);
    assert.equal(mixedBaseline.status, 2, mixedBaseline.stdout + mixedBaseline.stderr);
    assert.match(mixedBaseline.stderr, /baseline run "globex-release-42" holds the results of 2 tenants \(tenant "acme" 3 results, tenant "globex" 2 results\).*--baseline globex-release-42/);
    assert.doesNotMatch(mixedBaseline.stderr, /run "globex-release-41"/, "the run itself carries one tenant");
  });

  test("an operator's run (results without a tenant) that a tenant's request names is mixed too", async () => {
    const mixed = await gate("--run", OPERATOR_RUN);
    assert.equal(mixed.status, 2, mixed.stdout + mixed.stderr);
    assert.match(mixed.stderr, /run "operator-release-7" holds the results of 2 tenants \(no tenant \(''\) 2 results, tenant "acme" 1 result\)/);
  });

  test("another tenant's 'running' lineage of the run id stops the unscoped gate, saying how to gate the tenant's own run; --tenant reads the tenant's record alone", async () => {
    const stopped = await gate("--run", GLOBEX_LINEAGE_RUN);
    assert.equal(stopped.status, 2, stopped.stdout + stopped.stderr);
    assert.match(stopped.stderr, /run globex-release-40 has not finished: .*1 of 100 cases stored.*\(read from any tenant's lineage of run id globex-release-40; to gate one tenant's run on its own record, add --tenant NAME\)/);
    const globex = await gate("--run", GLOBEX_LINEAGE_RUN, "--tenant", "globex");
    assert.equal(globex.status, 1, globex.stdout + globex.stderr);
    assert.match(globex.stdout, /Release gate for run globex-release-40 \(1 cases\)/);
  });

  test("the operator's report of the run is written and says, in the terminal and the report, that two tenants' results are in it; globex's report does not", async () => {
    const noticeOf = (html: string) => [...html.matchAll(/data-notice="run-tenants">([^<]*)</g)].map((match) => match[1]!.replaceAll("&quot;", '"').replaceAll("&#39;", "'").replaceAll("&amp;", "&"));
    const file = path.join(folder, "operator.html");
    // The Runs board's pair named, so the runs shown by id are known: globex's two, one of them mixed.
    const report = await runRagscope(["report", "--data-dir", dataDir, "--run", GLOBEX_RUN, "--baseline", GLOBEX_OWN_RUN, "--candidate", GLOBEX_RUN, "--out", file], ENVIRONMENT);
    assert.equal(report.status, 0, report.stdout + report.stderr);
    const expected = /run "globex-release-42" holds the results of 2 tenants \(tenant "acme" 3 results, tenant "globex" 2 results\): .* report one tenant's with --tenant NAME/;
    assert.match(report.stderr, new RegExp(`ragscope report: warning: ${expected.source}`));
    const notices = noticeOf(await readFile(file, "utf8"));
    assert.equal(notices.length, 1, `globex-release-42 once, and not the baseline only globex's results carry: ${JSON.stringify(notices)}`);
    assert.match(notices[0]!, expected);

    const globexFile = path.join(folder, "globex.html");
    const globex = await runRagscope(["report", "--data-dir", dataDir, "--tenant", "globex", "--run", GLOBEX_RUN, "--baseline", GLOBEX_OWN_RUN, "--candidate", GLOBEX_RUN, "--out", globexFile], ENVIRONMENT);
    assert.equal(globex.status, 0, globex.stdout + globex.stderr);
    assert.doesNotMatch(globex.stdout + globex.stderr, /holds the results of/);
    assert.deepEqual(noticeOf(await readFile(globexFile, "utf8")), []);
    recordAttack({ attack: "tenant A's requests name tenant B's run id, in the operator's report (no --tenant) of B's run", outcome: "written, with a warning and a notice naming both tenants and counts" });
  });
});
