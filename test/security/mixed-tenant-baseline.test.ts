/**
 * `ragscope eval --baseline` is not compared and gated against a baseline whose results several tenants sent,
 * unless asked — as `gate` (test/security/mixed-tenant-run.test.ts). Any tenant's spans may name any run id: tenant
 * acme sending a request that names the operator's baseline run put its result beside the baseline's, and the
 * operator's next eval compared with (and decided its regression rules on) the mix.
 *
 * As a user meets it: the operator's `ragscope eval` without --tenant stores run "operator-baseline-3" (results
 * without a tenant) in a data folder; `ragscope serve` then runs on that folder as a child process with an ingest
 * token per tenant and a UI token per reader, and acme sends one request naming the run. While serve runs, the
 * read API is asked for the run's tenants with each reader's token, and an eval against serve
 * (`--endpoint`/`--read-api`) reads the baseline with the operator's token. Once serve stops, the built CLI's
 * `eval` runs on the same folder, embedded.
 *
 * Expected (README, "Compare with a baseline"; SECURITY.md, Tenants): GET /api/runs/<id>/tenants answers the
 * counts the token may read — the operator's token both tenant values, alice's (acme) acme's alone, bob's (globex)
 * none; the eval against serve with the operator's token, and the embedded eval without --tenant, exit 2 before
 * any case runs, naming the baseline's tenants and counts and the ways on; `--all-tenants` compares with the mix
 * deliberately and says so in its notes; `--tenant` with `--all-tenants` is refused.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { recordAttack } from "../support/attack-report.js";
import { listedOnceStored, listsTraces } from "../support/listed-traces.js";
import { oneRequestOtlp } from "../support/one-request-otlp.js";
import type { ServeWithUi } from "../support/serve-with-ui.js";
import { sendAsTenant, startTwoTenantServe } from "../support/two-tenant-serve.js";
import { projectRoot, runRagscope, tasksFolder } from "../e2e/experiments/support/run-ragscope.js";

const INGEST_ACME = "ingest-token-of-acme-mixed-baseline-51c0";
const INGEST_GLOBEX = "ingest-token-of-globex-mixed-baseline-7d2e";
const ALICE = "ui-token-of-alice-at-acme-mixed-baseline-0b9a";
const BOB = "ui-token-of-bob-at-globex-mixed-baseline-c44f";
const OPERATOR = "ui-token-of-the-operator-mixed-baseline-e613";

const BASELINE = "operator-baseline-3";
const ACME_TRACE = "a3000000000000000000000000000001";
const ENVIRONMENT = { RAGSCOPE_CLICKHOUSE_URL: "" };
const DATASET = path.join(projectRoot, "test/e2e/experiments/data/split-dataset.yaml");
const TASK = path.join(tasksFolder, "retrieving-task.ts");

/** The baseline's tenants as the refusal and the note name them: the eval's results first (more of them), then acme's one. */
const COUNTS = /no tenant \(''\) \d+ results, tenant "acme" 1 result/;

describe("eval does not compare with a baseline several tenants' results carry unless asked", () => {
  let folder: string;
  let dataDir: string;
  let serve: ServeWithUi | null = null;
  const tenantsSeenBy = new Map<string, unknown>();
  let remote: { status: number | null; stdout: string; stderr: string } | null = null;

  const evalArguments = (...args: string[]) => ["eval", "--dataset", DATASET, "--task", TASK, "--split", "regression", ...args];

  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-mixed-tenant-baseline-"));
    dataDir = path.join(folder, "data");
    const baseline = await runRagscope(evalArguments("--run-id", BASELINE, "--data-dir", dataDir), ENVIRONMENT);
    assert.notEqual(baseline.status, 2, `${baseline.stdout}\n${baseline.stderr}`);
    serve = await startTwoTenantServe(dataDir, { ingestAcme: INGEST_ACME, ingestGlobex: INGEST_GLOBEX, alice: ALICE, bob: BOB, operator: OPERATOR });
    await sendAsTenant(
      serve,
      INGEST_ACME,
      oneRequestOtlp({
        traceId: ACME_TRACE,
        serviceName: "acme-bot",
        spans: [{ name: "rag.request", attributes: { "openinference.span.kind": "CHAIN", "ragscope.stage": "request", "ragscope.run_id": BASELINE, "ragscope.query": "what is the refund window?", "ragscope.answer": "30 days" } }],
      }),
    );
    // Polled (bounded) until acme's request is stored, as the operator's list shows it.
    await listedOnceStored(serve, listsTraces([ACME_TRACE]), { token: OPERATOR });
    for (const [reader, token] of [["operator", OPERATOR], ["alice", ALICE], ["bob", BOB]] as const) {
      const answer = await fetch(`${serve.uiUrl}/api/runs/${BASELINE}/tenants`, { headers: { authorization: `Bearer ${token}` } });
      tenantsSeenBy.set(reader, { status: answer.status, body: await answer.json().catch(() => null) });
    }
    // Refused before any case runs: nothing is sent to serve's receiver (so no ingest token is needed).
    remote = await runRagscope(evalArguments("--baseline", BASELINE, "--endpoint", serve.receiverUrl, "--read-api", serve.uiUrl, "--data-dir", path.join(folder, "unused")), { ...ENVIRONMENT, RAGSCOPE_READ_API_TOKEN: OPERATOR });
    await serve.stop();
  });

  after(async () => {
    await serve?.stop();
    await rm(folder, { recursive: true, force: true });
  });

  test("the read API answers a run's tenant counts as the token may read them", () => {
    assert.deepEqual(tenantsSeenBy.get("alice"), { status: 200, body: { run_id: BASELINE, tenants: [{ tenant: "acme", results: 1 }] } });
    assert.deepEqual(tenantsSeenBy.get("bob"), { status: 200, body: { run_id: BASELINE, tenants: [] } });
    const operator = tenantsSeenBy.get("operator") as { status: number; body: { tenants: { tenant: string; results: number }[] } };
    assert.equal(operator.status, 200, JSON.stringify(operator));
    assert.deepEqual(operator.body.tenants.map((count) => count.tenant), ["", "acme"]);
    assert.equal(operator.body.tenants[1]!.results, 1);
  });

  test("the eval against serve, reading with the operator's token, is refused before any case runs", () => {
    assert.equal(remote?.status, 2, `${remote?.stdout}\n${remote?.stderr}`);
    assert.match(remote!.stderr, new RegExp(`--baseline ${BASELINE}: baseline run "${BASELINE}" holds the results of 2 tenants \\(${COUNTS.source}\\)`));
    assert.match(remote!.stderr, /nothing was run/);
    assert.match(remote!.stderr, /read with a token of one tenant \(RAGSCOPE_READ_API_TOKEN/);
    assert.doesNotMatch(remote!.stderr, /ragscope eval: run /, "no run started");
  });

  test("the embedded eval without --tenant is refused before any case runs; --all-tenants compares with the mix and says so", async () => {
    const refused = await runRagscope(evalArguments("--baseline", BASELINE, "--data-dir", dataDir), ENVIRONMENT);
    assert.equal(refused.status, 2, refused.stdout + refused.stderr);
    assert.match(refused.stderr, new RegExp(`baseline run "${BASELINE}" holds the results of 2 tenants \\(${COUNTS.source}\\).*--tenant NAME.*--all-tenants`));
    assert.doesNotMatch(refused.stderr, /ragscope eval: run /, "no run started");

    const everyTenant = await runRagscope(evalArguments("--baseline", BASELINE, "--all-tenants", "--data-dir", dataDir), ENVIRONMENT);
    assert.notEqual(everyTenant.status, 2, everyTenant.stdout + everyTenant.stderr);
    assert.match(everyTenant.stdout, new RegExp(`Note: --all-tenants: baseline run ${BASELINE} counted every tenant's results together: ${COUNTS.source}`));

    const both = await runRagscope(evalArguments("--baseline", BASELINE, "--all-tenants", "--tenant", "acme", "--data-dir", dataDir), ENVIRONMENT);
    assert.equal(both.status, 2, both.stdout + both.stderr);
    assert.match(both.stderr, /--tenant and --all-tenants cannot be given together/);
    recordAttack({ attack: "tenant A's request names the operator's baseline run id, to move the operator's next eval comparison and regression rules", outcome: "eval (embedded, and against serve with a token of every tenant) exits 2 before any case runs, naming the tenants and counts; --all-tenants is the deliberate mix" });
  });
});
