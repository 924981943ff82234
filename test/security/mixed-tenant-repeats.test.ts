/**
 * The repeats of a run (`eval --repeat N` stores repeat k > 1 as run `<id>.repeat-k`) decide the release gate with
 * it, so another tenant's requests naming a repeat's id must not decide it either. The operator's gate without
 * --tenant refused a run id several tenants' results carry, but looked at the run id alone: tenant globex's run
 * "globex-release-50" passes `p50_latency_ms <= 1000` on repeat 1 (two fast requests) and fails it on repeat 2
 * (two slow ones) — globex's own eval blocked it — and tenant acme's three fast requests naming
 * "globex-release-50.repeat-2" made repeat 2's median theirs: the operator's gate passed globex's release (exit 0).
 * And a repeat of a run that had none, only acme's requests naming "globex-release-51.repeat-2", decided globex's
 * run: acme's slow request blocked a release globex's results pass. And acme's lineage "running" for
 * "globex-release-52.repeat-2" stopped the operator's gate of globex's run without the way past it that the same
 * record of the run id itself is told with (--tenant).
 *
 * As a user meets it: `ragscope serve` runs as a child process with an ingest token per tenant; globex and acme send
 * their requests; once serve stops, the built CLI runs `gate` on the same data folder.
 *
 * Expected (README, gate; SECURITY.md, Tenants): the unscoped gate on a run whose repeats' results carry more than
 * one tenant value — within a repeat, or between repeats — exits 2 naming each repeat's tenants and counts and the
 * two ways on; `--tenant globex` gates globex's results of every repeat only (repeat 2 fails: exit 1; run 51 passes:
 * exit 0); `--all-tenants` decides on the mix deliberately and says whose results each repeat counted. Another
 * tenant's unfinished record of a repeat stops the unscoped gate (exit 2) advising --tenant, which decides.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { recordAttack } from "../support/attack-report.js";
import { listedOnceStored, listsTraces } from "../support/listed-traces.js";
import { oneRequestOtlp } from "../support/one-request-otlp.js";
import type { ServeWithUi } from "../support/serve-with-ui.js";
import { sendAsTenant, startTwoTenantServe } from "../support/two-tenant-serve.js";
import { runRagscope } from "../e2e/experiments/support/run-ragscope.js";

const INGEST_ACME = "ingest-token-of-acme-mixed-repeats-3f81";
const INGEST_GLOBEX = "ingest-token-of-globex-mixed-repeats-a927";
const ALICE = "ui-token-of-alice-at-acme-mixed-repeats-5c02";
const BOB = "ui-token-of-bob-at-globex-mixed-repeats-e4d6";
const OPERATOR = "ui-token-of-the-operator-mixed-repeats-71b9";

/** Globex's run of two repeats; acme's requests name its repeat 2. */
const FLAKY_RUN = "globex-release-50";
/** Globex's run of one repeat; acme's request names a repeat 2 it never had. */
const SINGLE_RUN = "globex-release-51";
/** Globex's run of one repeat; acme records lineage "running" for a repeat 2 it never had. */
const LINEAGE_REPEAT_RUN = "globex-release-52";

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
  { traceId: "d5000000000000000000000000000001", token: INGEST_GLOBEX, runId: FLAKY_RUN, durationMs: FAST_MS },
  { traceId: "d5000000000000000000000000000002", token: INGEST_GLOBEX, runId: FLAKY_RUN, durationMs: FAST_MS },
  { traceId: "d5000000000000000000000000000003", token: INGEST_GLOBEX, runId: `${FLAKY_RUN}.repeat-2`, durationMs: SLOW_MS },
  { traceId: "d5000000000000000000000000000004", token: INGEST_GLOBEX, runId: `${FLAKY_RUN}.repeat-2`, durationMs: SLOW_MS },
  { traceId: "d5000000000000000000000000000005", token: INGEST_GLOBEX, runId: SINGLE_RUN, durationMs: FAST_MS },
  { traceId: "d5000000000000000000000000000006", token: INGEST_GLOBEX, runId: SINGLE_RUN, durationMs: FAST_MS },
  { traceId: "d5000000000000000000000000000007", token: INGEST_GLOBEX, runId: LINEAGE_REPEAT_RUN, durationMs: FAST_MS },
  { traceId: "d5000000000000000000000000000008", token: INGEST_GLOBEX, runId: LINEAGE_REPEAT_RUN, durationMs: FAST_MS },
  { traceId: "a5000000000000000000000000000001", token: INGEST_ACME, runId: `${FLAKY_RUN}.repeat-2`, durationMs: FAST_MS },
  { traceId: "a5000000000000000000000000000002", token: INGEST_ACME, runId: `${FLAKY_RUN}.repeat-2`, durationMs: FAST_MS },
  { traceId: "a5000000000000000000000000000003", token: INGEST_ACME, runId: `${FLAKY_RUN}.repeat-2`, durationMs: FAST_MS },
  { traceId: "a5000000000000000000000000000004", token: INGEST_ACME, runId: `${SINGLE_RUN}.repeat-2`, durationMs: SLOW_MS },
];

function otlp(sent: Sent): string {
  return oneRequestOtlp({
    traceId: sent.traceId,
    serviceName: sent.token === INGEST_ACME ? "acme-bot" : "globex-bot",
    durationMs: sent.durationMs,
    spans: [{ name: "rag.request", attributes: { "openinference.span.kind": "CHAIN", "ragscope.stage": "request", "ragscope.run_id": sent.runId, "ragscope.query": "what is the refund window?", "ragscope.answer": "30 days" } }],
  });
}

describe("the repeats of a run are gated on one tenant's results, as the run itself is", () => {
  let folder: string;
  let dataDir: string;
  let gates: string;
  let serve: ServeWithUi | null = null;

  const gate = (...args: string[]) => runRagscope(["gate", "--gates", gates, "--data-dir", dataDir, ...args], ENVIRONMENT);

  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-mixed-tenant-repeats-"));
    dataDir = path.join(folder, "data");
    gates = path.join(folder, "gates.yaml");
    await writeFile(gates, 'performance:\n  p50_latency_ms: "<= 1000"\n');
    serve = await startTwoTenantServe(dataDir, { ingestAcme: INGEST_ACME, ingestGlobex: INGEST_GLOBEX, alice: ALICE, bob: BOB, operator: OPERATOR });
    for (const sent of SENT) await sendAsTenant(serve, sent.token, otlp(sent));
    const recorded = await fetch(`${serve.uiUrl}/api/runs/${LINEAGE_REPEAT_RUN}.repeat-2/lineage`, {
      method: "PUT",
      headers: { authorization: `Bearer ${ALICE}`, "content-type": "application/json" },
      body: JSON.stringify({ run_id: `${LINEAGE_REPEAT_RUN}.repeat-2`, started_at: "2026-01-02T00:00:00.000Z", completion: { status: "running", planned_cases: 100, stored_cases: null } }),
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

  test("acme's requests in repeat 2 of globex's run: the operator's gate is not decided (exit 2), naming each repeat's tenants; --tenant globex blocks it on globex's repeat 2", async () => {
    const mixed = await gate("--run", FLAKY_RUN);
    assert.equal(mixed.status, 2, mixed.stdout + mixed.stderr);
    assert.match(mixed.stderr, /run "globex-release-50" and its repeats hold the results of 2 tenants \(repeat 1: tenant "globex" 2 results; repeat 2 \(run globex-release-50\.repeat-2\): tenant "acme" 3 results, tenant "globex" 2 results\)/);
    assert.match(mixed.stderr, /--tenant NAME/);
    assert.match(mixed.stderr, /--all-tenants to gate on every tenant's results of --run globex-release-50 and its repeats together/);
    assert.doesNotMatch(mixed.stdout, /Release gate for run/, "no decision is printed");

    const globex = await gate("--run", FLAKY_RUN, "--tenant", "globex");
    assert.equal(globex.status, 1, globex.stdout + globex.stderr);
    assert.match(globex.stdout, /Release gate for run globex-release-50\.repeat-2 \(repeat 2, 2 cases\): BLOCKED/);
    assert.match(globex.stdout, /performance\.p50_latency_ms\s+5000/);

    // Deliberately every tenant's: acme's three fast requests make repeat 2's median theirs, and the output says whose.
    const everyTenant = await gate("--run", FLAKY_RUN, "--all-tenants");
    assert.equal(everyTenant.status, 0, everyTenant.stdout + everyTenant.stderr);
    assert.match(everyTenant.stdout, /Release gate for run globex-release-50\.repeat-2 \(repeat 2, 5 cases\)/);
    assert.match(everyTenant.stdout, /Note: --all-tenants: run globex-release-50 and its repeats counted every tenant's results together: repeat 1: tenant "globex" 2 results; repeat 2 \(run globex-release-50\.repeat-2\): tenant "acme" 3 results, tenant "globex" 2 results/);
    recordAttack({ attack: "tenant A sends passing requests naming repeat 2 (<run>.repeat-2) of tenant B's eval --repeat run, to pass the operator's gate of B's run", outcome: "the unscoped gate exits 2 naming each repeat's tenants and counts; --tenant B blocks the run on B's repeat 2; --all-tenants is the deliberate mix" });
  });

  test("a repeat 2 only acme's requests name, of a globex run without repeats: the operator's gate is not decided (exit 2); --tenant globex passes the run on its own results", async () => {
    const mixed = await gate("--run", SINGLE_RUN);
    assert.equal(mixed.status, 2, mixed.stdout + mixed.stderr);
    assert.match(mixed.stderr, /run "globex-release-51" and its repeats hold the results of 2 tenants \(repeat 1: tenant "globex" 2 results; repeat 2 \(run globex-release-51\.repeat-2\): tenant "acme" 1 result\)/);
    assert.doesNotMatch(mixed.stdout, /Release gate for run/, "no decision is printed");

    const globex = await gate("--run", SINGLE_RUN, "--tenant", "globex");
    assert.equal(globex.status, 0, globex.stdout + globex.stderr);
    assert.match(globex.stdout, /Release gate for run globex-release-51 \(2 cases\): PASSED/);
    assert.doesNotMatch(globex.stdout, /repeat/, "acme's repeat 2 is not globex's");
    recordAttack({ attack: "tenant A's request names a repeat 2 (<run>.repeat-2) that tenant B's run never had, to block the operator's gate of B's run", outcome: "the unscoped gate exits 2 naming the repeat's tenant; --tenant B decides on B's run alone" });
  });

  test("another tenant's 'running' lineage of a repeat's id stops the unscoped gate, saying how to gate the tenant's own run, as for the run id itself; --tenant globex decides on globex's run", async () => {
    const stopped = await gate("--run", LINEAGE_REPEAT_RUN);
    assert.equal(stopped.status, 2, stopped.stdout + stopped.stderr);
    assert.match(
      stopped.stderr,
      /run globex-release-52\.repeat-2 has not finished: .*\(repeat 2 of run globex-release-52: every repeat decides; read from any tenant's lineage of run id globex-release-52\.repeat-2; to gate one tenant's run on its own record, add --tenant NAME\)/,
    );
    const globex = await gate("--run", LINEAGE_REPEAT_RUN, "--tenant", "globex");
    assert.equal(globex.status, 0, globex.stdout + globex.stderr);
    assert.match(globex.stdout, /Release gate for run globex-release-52 \(2 cases\): PASSED/);
    recordAttack({ attack: "tenant A records lineage 'running' for repeat 2 (<run>.repeat-2) of tenant B's run, to stop the operator's gate of B's run", outcome: "the unscoped gate exits 2 and says to gate B's run with --tenant; --tenant B decides on B's own record" });
  });
});
