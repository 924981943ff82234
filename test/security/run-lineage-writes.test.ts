/**
 * Writes to `PUT /api/runs/:id/lineage` (migration 0027: each tenant's record
 * of a run id is its own) by a tenant token that attacks them: hostile
 * started_at values, odd run ids, an oversized body, two tenants writing the
 * same run id at once, and a tenant recording "complete" for another tenant's
 * interrupted run so that the operator's gate (no --tenant, so it reads both
 * records) decides on the partial run.
 *
 * As a user meets it: `ragscope serve` as a child process with a UI token per
 * tenant (acme, globex) and the operator's token of every tenant; after serve
 * stops, `ragscope gate` over the same data folder. Expected (SECURITY.md,
 * Tenants): a start that is no time, or one years ahead, is 400 naming
 * started_at and nothing is recorded (it was a 500 carrying the engine's parse
 * error, and "2999-…" was stored and kept the tenant's runs first in the
 * operator's runs list); the operator reads globex's "interrupted", whatever
 * acme recorded later (it read acme's newer "complete", and its gate then
 * judged globex's partial run as a whole one).
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { tokenDigestHex } from "../../collector/01-receive/bearer-authorization.js";
import { recordAttack } from "../support/attack-report.js";
import { startServeWithUi, type ServeWithUi } from "../support/serve-with-ui.js";
import { runRagscope } from "../e2e/experiments/support/run-ragscope.js";

const ALICE = "ui-token-of-alice-at-acme-writes-2b71";
const BOB = "ui-token-of-bob-at-globex-writes-9c04";
const OPERATOR = "ui-token-of-the-operator-writes-e5d8";
const START = "2026-01-02T00:00:00.000Z";

describe("run lineage writes by a hostile tenant token", () => {
  let folder: string;
  let dataDir: string;
  let serve: ServeWithUi | null = null;

  const request = (token: string, address: string, init: RequestInit = {}) => fetch(`${serve!.uiUrl}${address}`, { ...init, headers: { authorization: `Bearer ${token}`, "content-type": "application/json" } });
  const put = (token: string, runId: string, body: unknown, query = "") => request(token, `/api/runs/${runId}/lineage${query}`, { method: "PUT", body: typeof body === "string" ? body : JSON.stringify(body) });
  const lineageOf = async (token: string, runId: string) => ((await (await request(token, `/api/runs/${encodeURIComponent(runId)}/lineage`)).json()) as { lineage: Record<string, unknown> | null }).lineage;

  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-run-lineage-writes-"));
    dataDir = path.join(folder, "data");
    serve = await startServeWithUi(dataDir, {
      RAGSCOPE_UI_TOKENS: "",
      RAGSCOPE_UI_TENANT_TOKENS: `alice:acme=${tokenDigestHex(ALICE)},bob:globex=${tokenDigestHex(BOB)},operator:*=${tokenDigestHex(OPERATOR)}`,
    });
  });

  after(async () => {
    if (serve !== null && serve.child.exitCode === null) {
      serve.child.kill("SIGTERM");
      await serve.exited;
    }
    await rm(folder, { recursive: true, force: true });
  });

  test("a started_at that is no time, or years ahead or before 1970, is 400 naming started_at; nothing is recorded", async () => {
    const hostile = ["garbage", "", "2026-01-02", "99999-01-01T00:00:00Z", "2026-02-30T00:00:00Z", "2999-01-01T00:00:00.000Z", "1800-01-01T00:00:00.000Z", "<script>alert(1)</script>"];
    for (const [index, startedAt] of hostile.entries()) {
      const runId = `acme-hostile-start-${index}`;
      const answer = await put(ALICE, runId, { run_id: runId, started_at: startedAt });
      const body = (await answer.json()) as { error?: string };
      assert.equal(answer.status, 400, `started_at ${JSON.stringify(startedAt)}: ${JSON.stringify(body)}`);
      assert.match(body.error ?? "", /started_at/, JSON.stringify(startedAt));
      assert.doesNotMatch(body.error ?? "", /Cannot read DateTime|ParallelParsing/, "the engine's own parse error is not the answer");
      assert.equal(await lineageOf(ALICE, runId), null, `started_at ${JSON.stringify(startedAt)} was recorded`);
    }
    assert.equal((await put(ALICE, "acme-fine-start", { run_id: "acme-fine-start", started_at: "2026-01-02T03:04:05.678+02:00" })).status, 200);
    recordAttack({ attack: "a tenant PUTs run lineage whose started_at is no time, or centuries ahead (to stay first in the operator's runs list)", outcome: "400 naming started_at, nothing recorded" });
  });

  test("odd run ids and bodies are refused with the reason, and nothing is recorded", async () => {
    const refused: [string, unknown, number, RegExp][] = [
      ["a%00b", { run_id: "a\u0000b", started_at: START }, 400, /run id/],
      ["%E2%80%AE", { run_id: "\u202e", started_at: START }, 400, /run id/],
      ["x".repeat(200), { run_id: "x".repeat(200), started_at: START }, 400, /longer than 128 characters/],
      ["acme-mismatch", { run_id: "globex-release-42", started_at: START }, 400, /is not the run of the address/],
      ["acme-proto", `{"run_id":"acme-proto","started_at":"${START}","__proto__":{"notes":"polluted"}}`, 400, /Unrecognized key/],
      ["acme-array", "[1]", 400, /expected object/],
      ["acme-huge", { run_id: "acme-huge", started_at: START, notes: "x".repeat(70_000) }, 413, /larger than 64 KiB \(65536 bytes\)/],
      ["acme-number", { run_id: "acme-number", started_at: START, completion: { status: "complete", planned_cases: 1e308, stored_cases: null } }, 400, /planned_cases/],
    ];
    for (const [runId, body, status, reason] of refused) {
      const answer = await put(ALICE, runId, body);
      const text = await answer.text();
      assert.equal(answer.status, status, `${runId.slice(0, 40)}: ${text}`);
      assert.match(text, reason, runId.slice(0, 40));
    }
    for (const runId of ["acme-mismatch", "globex-release-42", "acme-proto", "acme-huge", "acme-number"]) assert.equal(await lineageOf(OPERATOR, runId), null, runId);
    // A dot segment is resolved away by the URL parser before routing: nothing is at /api/lineage.
    assert.equal((await request(ALICE, "/api/runs/%2E%2E/lineage", { method: "PUT", body: JSON.stringify({ run_id: "..", started_at: START }) })).status, 404);
    recordAttack({ attack: "a tenant PUTs run lineage with NUL, bidi or 200-character run ids, another run's id in the body, __proto__, 1e308 cases, 70 KB", outcome: "400/404/413 with the reason, nothing recorded" });
  });

  test("a page on another site (or a sandboxed one, Origin null) cannot record lineage through the reviewer's browser", async () => {
    for (const origin of ["http://evil.example", "null", serve!.uiUrl.replace("127.0.0.1", "localhost")]) {
      const answer = await fetch(`${serve!.uiUrl}/api/runs/acme-cross-site/lineage`, { method: "PUT", headers: { authorization: `Bearer ${ALICE}`, "content-type": "text/plain", origin }, body: JSON.stringify({ run_id: "acme-cross-site", started_at: START }) });
      assert.equal(answer.status, 403, origin);
      assert.match(((await answer.json()) as { error: string }).error, /cross-origin request refused/);
    }
    assert.equal(await lineageOf(ALICE, "acme-cross-site"), null);
    recordAttack({ attack: "cross-site PUT of run lineage (Origin evil.example, null, another loopback name)", outcome: "403, nothing recorded" });
  });

  test("two tenants writing one run id at once each keep their own record", async () => {
    const runId = "shared-release-1";
    const writes = Array.from({ length: 10 }, (_, index) => [
      put(ALICE, runId, { run_id: runId, started_at: START, notes: `acme-${index}` }),
      put(BOB, runId, { run_id: runId, started_at: START, notes: `globex-${index}` }),
    ]).flat();
    const answers = await Promise.all(writes);
    assert.deepEqual(answers.map((answer) => answer.status), answers.map(() => 200));
    assert.match(String((await lineageOf(ALICE, runId))?.notes), /^acme-\d$/);
    assert.match(String((await lineageOf(BOB, runId))?.notes), /^globex-\d$/);
    recordAttack({ attack: "two tenants PUT lineage of one run id concurrently (10 each)", outcome: "all 200, each tenant reads only its own record" });
  });

  test("a tenant recording 'complete' for another tenant's interrupted run id does not make the operator's gate decide on it", async () => {
    const runId = "globex-release-43";
    const interrupted = await put(BOB, runId, { run_id: runId, started_at: START, generator_model: "globex-model", completion: { status: "interrupted", planned_cases: 10, stored_cases: 3 } });
    assert.equal(interrupted.status, 200, await interrupted.text());
    const forged = await put(ALICE, runId, { run_id: runId, started_at: START, generator_model: "acme-forged", completion: { status: "complete", planned_cases: 3, stored_cases: 3 } });
    assert.equal(forged.status, 200, "acme may record its own run of the same id");
    assert.equal((await lineageOf(ALICE, runId))?.generator_model, "acme-forged");
    assert.equal((await lineageOf(BOB, runId))?.generator_model, "globex-model");
    // The operator reads both records: the one that stops a decision comes first.
    assert.deepEqual((await lineageOf(OPERATOR, runId))?.completion, { status: "interrupted", planned_cases: 10, stored_cases: 3 });
    const listed = ((await (await request(OPERATOR, "/api/runs")).json()) as { runs: { runId: string; lineage: { completion: unknown } | null }[] }).runs;
    assert.deepEqual(listed.find((run) => run.runId === runId)?.lineage?.completion, { status: "interrupted", planned_cases: 10, stored_cases: 3 });

    serve!.child.kill("SIGTERM");
    await serve!.exited;
    const gate = await runRagscope(["gate", "--run", runId, "--data-dir", dataDir], { RAGSCOPE_CLICKHOUSE_URL: "" });
    assert.equal(gate.status, 2, gate.stdout + gate.stderr);
    assert.match(gate.stderr, /run globex-release-43 was interrupted: 3 of 10 cases stored/, gate.stdout + gate.stderr);
    recordAttack({ attack: "tenant A records 'complete' for tenant B's interrupted run id, for the operator's gate without --tenant", outcome: "the operator reads B's 'interrupted'; gate exits 2 naming it" });
  });
});
