/**
 * Nothing acknowledged is dropped silently. A trace the receiver accepts (200)
 * whose rebuilt Case Result then fails its schema (token counts whose total is
 * beyond the largest number, so the total is Infinity, which the schema refuses;
 * a negative token count and an empty packed chunk id used to be examples, and
 * are now read as not available or as a chunk without an id, with a note)
 * cannot be stored; it becomes a dead letter. Attacked through
 * `ragscope serve` as a subprocess: the letter is counted in /metrics, is
 * still there after a restart (it used to live in memory only), and is listed
 * with its reason by `ragscope dead-letters` and counted by `ragscope report`;
 * its body is the rejected result as it was.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { recordAttack } from "../support/attack-report.js";
import { startCollectorSubprocess, type CollectorSubprocess } from "../support/collector-subprocess.js";

const ragscope = fileURLToPath(new URL("../../bin/ragscope.js", import.meta.url));
const POISONED_TRACE = "d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1d1";
const VALID_TRACE = "e2e2e2e2e2e2e2e2e2e2e2e2e2e2e2e2";

/** A trace whose generation span counts `tokens` prompt and `tokens` completion tokens (1e308 each: a total of Infinity fails the Case Result's schema). */
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

  test("acknowledged, dead-lettered, counted in /metrics; still there after a restart; listed with the reason", async () => {
    collector = await startCollectorSubprocess({}, { dataDir });
    for (const body of [request(POISONED_TRACE, 1e308), request(VALID_TRACE, 12)]) {
      const answer = await fetch(`${collector.receiverUrl}/v1/traces`, { method: "POST", headers: { "content-type": "application/json" }, body });
      assert.equal(answer.status, 200, "the receiver acknowledges both: the problem shows only when the result is rebuilt");
    }
    assert.equal(await metricReaches(collector, "ragscope_dead_letters_stored", 1), 1);
    assert.equal(await metricReaches(collector, "ragscope_traces_written_total", 1), 1, "the valid trace is stored");
    assert.equal(await collector.stop(), 0, collector.output());

    collector = await startCollectorSubprocess({}, { dataDir });
    assert.equal(await metric(collector, "ragscope_dead_letters_stored"), 1, "the restarted collector counts the letter of the run before");
    assert.equal(await metric(collector, "ragscope_messages_dead_lettered_total"), 0, "none in this run");
    assert.equal(await collector.stop(), 0, collector.output());
    collector = null;

    const listed = cli("dead-letters");
    assert.equal(listed.status, 0, listed.output);
    assert.match(listed.output, /^1 dead letters in /m);
    const line = listed.output.split("\n").find((entry) => entry.includes(POISONED_TRACE));
    assert.ok(line, listed.output);
    assert.match(line, /invalid_case_result/);
    assert.match(line, /rag_observation\.generation\.total_tokens/);
    assert.match(line, /not stored/);
    assert.ok(!listed.output.includes(VALID_TRACE), "only the failed trace is a dead letter");

    const letterId = line.split(/\s+/)[1]!;
    const saved = cli("dead-letters", "--body", letterId, "--out", path.join(folder, "letter.json"));
    assert.equal(saved.status, 0, saved.output);
    const rejected = JSON.parse(await readFile(path.join(folder, "letter.json"), "utf8")) as { trace_id: string; rag_observation: { generation: { input_tokens: number } } };
    assert.equal(rejected.trace_id, POISONED_TRACE);
    assert.equal(rejected.rag_observation.generation.input_tokens, 1e308, "the letter holds the rejected result as it was");

    const report = cli("report", "--out", path.join(folder, "report.html"));
    assert.match(report.output, /Dead letters: 1 acknowledged message not evaluated, kept in the store — `ragscope dead-letters` lists them/);
    // The Collector health board counts the Kafka evaluators' letters too, which are not in the store: the line says where they are.
    assert.match(report.output, /lists them with the reason; the Kafka roles \(ragscope evaluate, collect\) keep theirs in their dead-letter topic \(RAGSCOPE_KAFKA_DEAD_LETTER_TOPIC, default otlp_spans_dead_letters\), not in the store/);
    recordAttack({ attack: "acknowledged trace whose Case Result fails its schema, then a restart", outcome: "dead letter in the store: /metrics, dead-letters, report" });
  });
});
