/**
 * A store that answers its ping but refuses writes (a full disk, or a table
 * over its part limit): `ragscope serve` acknowledged every request, /readyz
 * said ready, the log said nothing, and at SIGTERM the traces it still held
 * were dropped and the process exited 0 — 89 of 1,505 acknowledged traces
 * stored on a full disk. Attacked as an operator meets it: serve as a
 * subprocess over a store whose tables the real engine makes refuse every
 * insert (MergeTree's `parts_to_throw_insert = 0`: "Too many parts", the
 * error a server near its part limit gives), OTLP/HTTP in, /readyz, the log,
 * the exit code and `ragscope dead-letters` read back.
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import { openClickHouse } from "../../store/clickhouse/clickhouse-connection.js";
import { startCollectorSubprocess, type CollectorSubprocess } from "../support/collector-subprocess.js";
import { runRagscope } from "../support/run-ragscope.js";

const TRACE = "5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f";

function cli(dataDir: string, ...args: string[]) {
  const child = runRagscope([...args, "--data-dir", dataDir], path.dirname(dataDir), {}, 300_000);
  return { status: child.status, output: `${child.stdout}${child.stderr}` };
}

/** A migrated store whose `tables` refuse every insert from now on. */
async function storeRefusingWritesTo(dataDir: string, tables: readonly string[]): Promise<void> {
  const migrated = cli(dataDir, "migrate");
  assert.equal(migrated.status, 0, migrated.output);
  const connection = await openClickHouse({ url: null, username: "default", password: "", database: "ragscope", dataPath: dataDir });
  try {
    for (const table of tables) await connection.client.command({ query: `ALTER TABLE ragscope.${table} MODIFY SETTING parts_to_throw_insert = 0` });
  } finally {
    await connection.close();
  }
}

function oneTrace(traceId = TRACE): string {
  const now = BigInt(Date.now()) * 1_000_000n;
  const text = (value: string) => ({ stringValue: value });
  return JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: [{ key: "service.name", value: text("full-disk-bot") }] },
        scopeSpans: [
          {
            spans: [
              {
                traceId,
                spanId: "5f5f5f5f5f5f5f51",
                name: "rag.request",
                kind: 1,
                startTimeUnixNano: String(now),
                endTimeUnixNano: String(now + 5_000_000n),
                attributes: [
                  { key: "openinference.span.kind", value: text("CHAIN") },
                  { key: "input.value", value: text("how long do refunds take?") },
                ],
              },
            ],
          },
        ],
      },
    ],
  });
}

/** Polls /readyz (bounded) until it is not ready; its status and text. */
async function readinessOnceRefused(collector: CollectorSubprocess): Promise<{ status: number; text: string }> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const answer = await fetch(`${collector.metricsUrl}/readyz`);
    const reading = { status: answer.status, text: await answer.text() };
    if (reading.status !== 200 || Date.now() > deadline) return reading;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("serve over a store that refuses writes", () => {
  const folders: string[] = [];
  let collector: CollectorSubprocess | null = null;
  after(async () => {
    await collector?.stop();
    for (const folder of folders) await rm(folder, { recursive: true, force: true });
  });

  async function serveOver(tables: readonly string[], traceIds: readonly string[] = [TRACE]): Promise<{ dataDir: string; running: CollectorSubprocess }> {
    const folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-store-refuses-"));
    folders.push(folder);
    const dataDir = path.join(folder, "store");
    await storeRefusingWritesTo(dataDir, tables);
    collector = await startCollectorSubprocess({}, { dataDir });
    for (const traceId of traceIds) {
      const answer = await fetch(`${collector.receiverUrl}/v1/traces`, { method: "POST", headers: { "content-type": "application/json" }, body: oneTrace(traceId) });
      assert.equal(answer.status, 200, "the receiver acknowledges: the refusal comes when the result is written");
    }
    return { dataDir, running: collector };
  }

  test("the result tables refuse: /readyz is 503 with the reason, the log says so once, and the stop keeps the trace as a dead letter", async () => {
    const { dataDir, running } = await serveOver(["trace_spans"]);
    const readiness = await readinessOnceRefused(running);
    assert.equal(readiness.status, 503, readiness.text);
    assert.match(readiness.text, /^clickhouse: ok$/m, "the store answers its ping");
    assert.match(readiness.text, /^store writes: the store refuses writes \(ClickHouse insert failed: Too many parts[^\n]*\): \d+ evaluated trace\(s\) wait in memory/m);
    const refusalLine = /^ragscope serve: the store refuses writes \(ClickHouse insert failed: Too many parts/m;
    for (let waited = 0; !refusalLine.test(running.output()) && waited < 100; waited += 1) await new Promise((resolve) => setTimeout(resolve, 100));
    assert.match(running.output(), refusalLine);

    const code = await running.stop();
    collector = null;
    assert.equal(code, 0, `nothing acknowledged is lost: the trace is a dead letter\n${running.output()}`);
    assert.match(running.output(), /1 acknowledged trace\(s\) could not be stored: the store refused their writes until the stop \(ClickHouse insert failed: Too many parts[^\n]*\); 1 kept as dead letters \(ragscope dead-letters lists them, with their Case Result\)\. Free the store's disk/);
    assert.equal(running.output().match(refusalLine)?.length, 1, "the outage is said once, not once per retry");

    const listed = cli(dataDir, "dead-letters");
    assert.equal(listed.status, 0, listed.output);
    const line = listed.output.split("\n").find((entry) => entry.includes(TRACE));
    assert.ok(line, listed.output);
    assert.match(line, /store_refused_at_stop/);
    const saved = cli(dataDir, "dead-letters", "--body", line.split(/\s+/)[1]!, "--out", path.join(dataDir, "..", "letter.json"));
    assert.equal(saved.status, 0, saved.output);
    const kept = JSON.parse(await readFile(path.join(dataDir, "..", "letter.json"), "utf8")) as { case_result: { trace_id: string; rag_observation: { query: string } }; evaluation_results: unknown[] };
    assert.deepEqual([kept.case_result.trace_id, kept.case_result.rag_observation.query], [TRACE, "how long do refunds take?"]);
    assert.ok(kept.evaluation_results.length > 0, "the letter holds the trace's evaluation too");
  });

  test("the dead letters refuse too: the stop says the traces are lost and exits 2, trying the store once, not once per trace", async () => {
    // Twenty traces the store refuses at the stop: each used to retry the first unsaved letter with its backoff (a
    // full disk held a stop for minutes, past a supervisor's SIGKILL). Now the first refusal ends the tries until the
    // last one: the failed writes are counted in the log, not timed.
    const traceIds = Array.from({ length: 20 }, (_, index) => `6e6e6e6e6e6e6e6e6e6e6e6e6e6e${String(index).padStart(4, "0")}`);
    const { running } = await serveOver(["trace_spans", "dead_letters"], traceIds);
    assert.equal((await readinessOnceRefused(running)).status, 503);
    const code = await running.stop();
    collector = null;
    assert.equal(code, 2, running.output());
    assert.match(running.output(), /20 acknowledged trace\(s\) could not be stored: [^\n]*; 0 kept as dead letters [^\n]*, 20 lost\./);
    const failedWrites = running.output().match(/writing dead letter [0-9a-f-]+ failed/g) ?? [];
    assert.ok(failedWrites.length <= 2, `${failedWrites.length} failed dead-letter writes logged at the stop:\n${running.output()}`);
  });
});
