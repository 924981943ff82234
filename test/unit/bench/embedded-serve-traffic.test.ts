/**
 * The embedded-serve benchmark's traffic (test/bench/embedded-serve.bench.ts
 * recordBodies, which freshness.bench.ts shares): by default no retrieved
 * chunk text recurs across traces, as on traffic whose documents rarely
 * repeat; with "repeated" (`--repeated-chunks`) every trace carries the same
 * ten texts. The evaluator remembers recent texts, so repeated texts make
 * every trace after the first cheaper than real traffic, and the benchmark's
 * figures would overstate serve's throughput.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { decodeProtobufSpanRecords, NO_LIMITS } from "../../../collector/00-otlp/decode-protobuf-span-records.js";
import { recordBodies } from "../../bench/embedded-serve.bench.js";
import type { ChunkTexts } from "../../bench/eight-span-request.js";

const CONTENT = /^retrieval\.documents\.\d+\.document\.content$/;

/** The retrieved chunk texts of each recorded trace, read back from the OTLP bodies. */
async function retrievedTextsPerTrace(chunkTexts?: ChunkTexts): Promise<string[][]> {
  const { bodies } = chunkTexts === undefined ? await recordBodies(6, 3) : await recordBodies(6, 3, chunkTexts);
  const perTrace: string[][] = [];
  for (const body of bodies) {
    const decoded = decodeProtobufSpanRecords(body, { limits: NO_LIMITS });
    assert.ok(decoded !== null, "the recorded body decodes");
    for (const trace of decoded.traces) {
      const texts = trace.spans.flatMap((span) => Object.entries(span.attributes).filter(([key]) => CONTENT.test(key)).map(([, value]) => String(value)));
      perTrace.push(texts);
    }
  }
  return perTrace;
}

test("by default every trace retrieves ten chunk texts no other trace carries", async () => {
  const perTrace = await retrievedTextsPerTrace();
  assert.equal(perTrace.length, 6);
  const seenIn = new Map<string, number>();
  perTrace.forEach((texts, traceIndex) => {
    assert.equal(new Set(texts).size, 10, `trace ${traceIndex} retrieves ten distinct texts`);
    for (const text of new Set(texts)) {
      assert.equal(seenIn.get(text), undefined, `"${text.slice(0, 30)}…" of trace ${traceIndex} was already in trace ${seenIn.get(text)}`);
      seenIn.set(text, traceIndex);
    }
  });
});

test("with repeated chunk texts every trace retrieves the same ten texts", async () => {
  const perTrace = await retrievedTextsPerTrace("repeated");
  assert.equal(perTrace.length, 6);
  const first = [...new Set(perTrace[0])].sort();
  assert.equal(first.length, 10);
  for (const texts of perTrace) assert.deepEqual([...new Set(texts)].sort(), first);
});
