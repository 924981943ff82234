/**
 * `ragscope gate` on an operator's run (results without a tenant, a store without tenant tokens) whose repeat 2 is
 * recorded "running" with no case stored yet — what an `eval --repeat 2` killed before its first case of repeat 2
 * leaves. The gate is not decided (exit 2) and says why, without advising `--tenant NAME`: there is no tenant to name,
 * and following it only gave "no stored results". The advice stays for another tenant's record
 * (test/security/mixed-tenant-repeats.test.ts). As a user meets it: `ragscope serve` as a child process, OTLP over
 * HTTP, the lineage recorded through the read API, then the built CLI's `gate` on the same data folder.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { listedOnceStored, listsTraces } from "../support/listed-traces.js";
import { oneRequestOtlp } from "../support/one-request-otlp.js";
import { startServeWithUi } from "../support/serve-with-ui.js";
import { runRagscope } from "./experiments/support/run-ragscope.js";

const RUN_ID = "operator-release-9";
const TRACES = ["e1000000000000000000000000000001", "e1000000000000000000000000000002"];

test("an operator's run with an unfinished repeat: not decided, and no advice to name a tenant", async () => {
  const folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-gate-repeat-"));
  const dataDir = path.join(folder, "data");
  const serve = await startServeWithUi(dataDir, { RAGSCOPE_QUIET_PERIOD_MS: "200" });
  try {
    for (const traceId of TRACES) {
      const body = oneRequestOtlp({ traceId, serviceName: "bot", durationMs: 10, spans: [{ name: "rag.request", attributes: { "openinference.span.kind": "CHAIN", "ragscope.stage": "request", "ragscope.run_id": RUN_ID, "ragscope.query": "q", "ragscope.answer": "a" } }] });
      const sent = await fetch(`${serve.receiverUrl}/v1/traces`, { method: "POST", headers: { "content-type": "application/json" }, body });
      assert.equal(sent.status, 200, await sent.text());
    }
    const recorded = await fetch(`${serve.uiUrl}/api/runs/${RUN_ID}.repeat-2/lineage`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ run_id: `${RUN_ID}.repeat-2`, started_at: "2026-01-02T00:00:00.000Z", completion: { status: "running", planned_cases: 2, stored_cases: null } }),
    });
    assert.equal(recorded.status, 200, await recorded.text());
    await listedOnceStored(serve, listsTraces(TRACES));
  } finally {
    await serve.stop();
  }
  try {
    const gates = path.join(folder, "gates.yaml");
    await writeFile(gates, 'performance:\n  p50_latency_ms: "<= 1000"\n');
    const gate = await runRagscope(["gate", "--run", RUN_ID, "--gates", gates, "--data-dir", dataDir], { RAGSCOPE_CLICKHOUSE_URL: "" });
    assert.equal(gate.status, 2, gate.stdout + gate.stderr);
    assert.match(gate.stderr, new RegExp(`repeat 2 of run ${RUN_ID}: every repeat decides\\)`));
    assert.doesNotMatch(gate.stderr, /--tenant/, "no tenant to name");
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
});
