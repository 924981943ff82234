/**
 * Nothing acknowledged is dropped silently: a trace the receiver accepted (200)
 * and then could not evaluate into a stored result is a dead letter, kept in
 * the store (the `dead_letters` table). Attacked through `ragscope serve` as a
 * subprocess: a letter is counted in /metrics, is still there after a restart
 * (it used to live in memory only), and is listed with its reason by
 * `ragscope dead-letters` and counted by `ragscope report`; its body is the
 * rejected result as it was.
 *
 * The letter is written through the collector's own dead-letter handler
 * (DurableDeadLetters over the store's DeadLetterStore), as the evaluation
 * worker writes one for a Case Result that fails its schema: no trace a sender
 * can write makes one any more (token counts whose sum is Infinity, a
 * negative count and an empty packed chunk id used to, and are now read as not
 * available or as a chunk without an id, with a note). A trace the store
 * refuses to write is the path that still makes letters from real traces
 * (store-refuses-writes.test.ts).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { DurableDeadLetters } from "../../collector/07-evaluate/durable-dead-letters.js";
import { openClickHouse } from "../../store/clickhouse/clickhouse-connection.js";
import { ClickHouseDeadLetterStore } from "../../store/clickhouse/clickhouse-dead-letter-store.js";
import { recordAttack } from "../support/attack-report.js";
import { startCollectorSubprocess, type CollectorSubprocess } from "../support/collector-subprocess.js";

const ragscope = fileURLToPath(new URL("../../bin/ragscope.js", import.meta.url));
const POISONED_TRACE = "d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1";
const VALID_TRACE = "e2e2e2e2e2e2e2e2e2e2e2e2e2e2e2e2";
/** The rejected result the letter holds: what the worker sends for a Case Result that fails its schema. */
const REJECTED = JSON.stringify({ trace_id: POISONED_TRACE, rag_observation: { generation: { input_tokens: 12, total_tokens: -1 } } });
const REASON = `the Case Result rebuilt from trace ${POISONED_TRACE} does not match its schema (contracts/case-result.ts), so it was not stored: rag_observation.generation.total_tokens: Number must be greater than or equal to 0`;

/** A trace whose generation span counts `tokens` prompt and `tokens` completion tokens. */
function request(traceId: string, tokens: number): string {
  const text = (value: string) => ({ stringValue: value });
  const span = (spanId: string, name: string, parent: string | undefined, attributes: unknown[]) => ({
    traceId,
    spanId,
    ...(parent ? { parentSpanId: parent } : {}),
    name,
    kind: 1,
    startTimeUnixNano: "1700000000000000000",
    endTimeUnixNano: "1700000000100000000",
    attributes,
  });
  return JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: [{ key: "service.name", value: text("poisoned-bot") }] },
        scopeSpans: [
          {
            spans: [
              span(`${traceId.slice(0, 15)}1`, "rag.request", undefined, [
                { key: "openinference.span.kind", value: text("CHAIN") },
                { key: "input.value", value: text("question") },
              ]),
              span(`${traceId.slice(0, 15)}2`, "rag.generate", `${traceId.slice(0, 15)}1`, [
                { key: "ragscope.stage", value: text("generate") },
                { key: "llm.token_count.prompt", value: { doubleValue: tokens } },
                { key: "llm.token_count.completion", value: { doubleValue: tokens } },
              ]),
            ],
          },
        ],
      },
    ],
  });
}

async function metric(collector: CollectorSubprocess, name: string): Promise<number | null> {
  const text = await (await fetch(`${collector.metricsUrl}/metrics`)).text();
  const match = new RegExp(`^${name} (\\d+)$`, "m").exec(text);
  return match === null ? null : Number(match[1]);
}

/** Polls /metrics (bounded) until the metric reaches `expected`; returns the last reading. */
async function metricReaches(collector: CollectorSubprocess, name: string, expected: number, timeoutMs = 30_000): Promise<number | null> {
  const deadline = Date.now() + timeoutMs;
  let value = await metric(collector, name);
  while (value !== expected && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    value = await metric(collector, name);
  }
  return value;
}

describe("a trace that fails after acknowledgement is kept durably as a dead letter", () => {
  let folder: string;
  let dataDir: string;
  let collector: CollectorSubprocess | null = null;

  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-dead-letters-"));
    dataDir = path.join(folder, "data");
  });
  after(async () => {
    await collector?.stop();
    await rm(folder, { recursive: true, force: true });
  });

  function cli(...args: string[]) {
    const child = spawnSync(process.execPath, [ragscope, ...args, "--data-dir", dataDir], { encoding: "utf8", cwd: folder, timeout: 300_000, env: { ...process.env, RAGSCOPE_CLICKHOUSE_URL: "" } });
    return { status: child.status, output: `${child.stdout}${child.stderr}` };
  }

  /** A migrated store holding one dead letter, written by the collector's dead-letter handler as the worker writes one. */
  async function storeWithLetter(): Promise<void> {
    const migrated = cli("migrate");
    assert.equal(migrated.status, 0, migrated.output);
    const connection = await openClickHouse({ url: null, username: "default", password: "", database: "ragscope", dataPath: dataDir });
    try {
      const letters = await DurableDeadLetters.open(new ClickHouseDeadLetterStore(connection));
      await letters.send({
        message: { key: POISONED_TRACE, value: new TextEncoder().encode(REJECTED), position: { partition: 0, offset: "0" }, headers: { "content-type": "application/json; ragscope=case-result" } },
        reason: REASON,
        code: "invalid_case_result",
      });
      await letters.flush();
      assert.equal(letters.counters.saved, 1);
    } finally {
      await connection.close();
    }
  }

  test("a dead letter is counted in /metrics; still there after a restart; listed with the reason", async () => {
    await storeWithLetter();
    collector = await startCollectorSubprocess({}, { dataDir });
    assert.equal(await metric(collector, "ragscope_dead_letters_stored"), 1, "the collector counts the letter in its store");
    const answer = await fetch(`${collector.receiverUrl}/v1/traces`, { method: "POST", headers: { "content-type": "application/json" }, body: request(VALID_TRACE, 12) });
    assert.equal(answer.status, 200);
    assert.equal(await metricReaches(collector, "ragscope_traces_written_total", 1), 1, "the valid trace is stored");
    assert.equal(await metric(collector, "ragscope_dead_letters_stored"), 1, "and is no dead letter");
    assert.equal(await collector.stop(), 0, collector.output());

    collector = await startCollectorSubprocess({}, { dataDir });
    assert.equal(await metric(collector, "ragscope_dead_letters_stored"), 1, "the restarted collector still counts it");
    assert.equal(await metric(collector, "ragscope_messages_dead_lettered_total"), 0, "none in this run");
    assert.equal(await collector.stop(), 0, collector.output());
    collector = null;

    const listed = cli("dead-letters");
    assert.equal(listed.status, 0, listed.output);
    assert.match(listed.output, /^1 dead letters in /m);
    const line = listed.output.split("\n").find((entry) => entry.includes(POISONED_TRACE));
    assert.ok(line, listed.output);
    assert.match(line, /invalid_case_result/);
    assert.match(line, /rag_observation\.generation\.total_tokens: Number must be greater than or equal to 0/);
    assert.match(line, /not stored/);
    assert.ok(!listed.output.includes(VALID_TRACE), "only the failed trace is a dead letter");

    const letterId = line.split(/\s+/)[1]!;
    const saved = cli("dead-letters", "--body", letterId, "--out", path.join(folder, "letter.json"));
    assert.equal(saved.status, 0, saved.output);
    const rejected = JSON.parse(await readFile(path.join(folder, "letter.json"), "utf8")) as { trace_id: string; rag_observation: { generation: { input_tokens: number } } };
    assert.equal(rejected.trace_id, POISONED_TRACE);
    assert.deepEqual(rejected, JSON.parse(REJECTED), "the letter holds the rejected result as it was");

    const report = cli("report", "--out", path.join(folder, "report.html"));
    assert.match(report.output, /Dead letters: 1 acknowledged message not evaluated, kept in the store — `ragscope dead-letters` lists them/);
    // The Collector health board counts the Kafka evaluators' letters too, which are not in the store: the line says where they are.
    assert.match(report.output, /lists them with the reason; the Kafka roles \(ragscope evaluate, collect\) keep theirs in their dead-letter topic \(RAGSCOPE_KAFKA_DEAD_LETTER_TOPIC, default otlp_spans_dead_letters\), not in the store/);
    recordAttack({ attack: "a dead letter of an acknowledged trace whose Case Result failed its schema, then a restart", outcome: "dead letter in the store: /metrics, dead-letters, report" });
  });
});
