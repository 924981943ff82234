/**
 * The assembler bounded by bytes: a few spans carrying megabytes must release
 * traces (flagged partial) and forget remembered ones, whatever the span count.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { storedSpanText } from "../../../collector/00-otlp/stored-span-text.js";
import { estimateSpanBytes } from "../../../collector/05-assemble/estimate-span-bytes.js";
import { TraceAssembler } from "../../../collector/05-assemble/trace-assembler.js";
import { spanRecord } from "../../support/span-records.js";

const MEBIBYTE = 1024 * 1024;
const traceId = (index: number) => index.toString(16).padStart(32, "c");
/** A child span (no root: the trace stays open) holding `characters` characters of text. */
const heavy = (index: number, characters: number) =>
  spanRecord({ traceId: traceId(index), spanId: index.toString(16).padStart(16, "d"), parentSpanId: "e".repeat(16), attributes: { "document.content": "x".repeat(characters) } });

describe("trace assembly bounded by bytes", () => {
  test("a span's estimate counts the stored text the decode thread attached to it, which it holds as well", () => {
    const bare = heavy(1, 100_000);
    const withText = { ...bare, stored: storedSpanText(bare) };
    assert.ok(estimateSpanBytes(withText) >= estimateSpanBytes(bare) + withText.stored.utf8.byteLength);
  });

  test("open traces past maxOpenBytes are released oldest first, flagged partial, though far fewer spans than maxOpenSpans", () => {
    const assembler = new TraceAssembler({ quietPeriodMs: 100, maxTraceWaitMs: 60_000, maxOpenSpans: 1_000_000, recentTraceMemory: 10, maxOpenBytes: 8 * MEBIBYTE, maxRecentBytes: 64 * MEBIBYTE });
    // Each span holds 1 Mi characters: at least 2 MiB estimated.
    for (let index = 1; index <= 5; index += 1) assembler.add([heavy(index, MEBIBYTE)], index);
    assert.ok(assembler.openBytes >= 10 * MEBIBYTE, `estimate ${assembler.openBytes} counts the text`);
    const released = assembler.collectReady(10);
    assert.ok(released.length >= 2, "released until under the bound");
    assert.deepEqual(released.map((trace) => trace.traceId), [1, 2, 3].slice(0, released.length).map(traceId), "oldest first");
    assert.ok(released.every((trace) => !trace.complete && trace.reason === "memory_bound"));
    assert.ok(assembler.openBytes <= 8 * MEBIBYTE);
    assert.equal(assembler.counters.memoryBoundReleases, released.length);
  });

  test("remembered traces are forgotten past maxRecentBytes, oldest first, and a trace larger than the bound is not remembered", () => {
    const assembler = new TraceAssembler({ quietPeriodMs: 100, maxTraceWaitMs: 1, maxOpenSpans: 1_000_000, recentTraceMemory: 1_000, maxOpenBytes: 1024 * MEBIBYTE, maxRecentBytes: 5 * MEBIBYTE });
    for (let index = 1; index <= 4; index += 1) assembler.add([heavy(index, MEBIBYTE)], 0);
    assert.equal(assembler.collectReady(10).length, 4);
    assert.ok(assembler.recentBytes <= 5 * MEBIBYTE && assembler.recentBytes > 0, `${assembler.recentBytes}`);
    // The newest is remembered: a late span re-opens it with its earlier span.
    assembler.add([spanRecord({ traceId: traceId(4), spanId: "f".repeat(16) })], 20);
    const [reopened] = assembler.collectReady(40);
    assert.equal(reopened?.reopened, true);
    assert.equal(reopened?.spans.length, 2);
    // The oldest was forgotten: a late span starts a new trace.
    assembler.add([spanRecord({ traceId: traceId(1), spanId: "f".repeat(16) })], 50);
    const [fresh] = assembler.collectReady(60);
    assert.equal(fresh?.reopened, false);
    assert.equal(fresh?.spans.length, 1);

    assembler.add([heavy(9, 4 * MEBIBYTE)], 100);
    assert.equal(assembler.collectReady(200).length, 1);
    assert.ok(assembler.recentBytes <= 5 * MEBIBYTE);
  });
});
