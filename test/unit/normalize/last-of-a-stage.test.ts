/**
 * Which span of a stage is the request's last (collector/06-rebuild/time-order.ts). OTel JS start times are whole
 * milliseconds, so two awaited generations — a draft, then the final answer — often start in the same millisecond;
 * the trace orders such spans by their random span ids, and the request's model was the draft's about half the time.
 * For generations the last is the one that ended last (collector/06-rebuild/last-generation.ts), as the request's
 * status reads it; the other stages take the last to start.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Attributes, SpanRecord } from "../../../collector/00-otlp/span-record.js";
import { createTraceNormalizer } from "../../../collector/04-normalize/normalize-spans.js";
import { rebuildCaseResult } from "../../../collector/06-rebuild/rebuild-case-result.js";
import { spanRecord } from "./span-fixture.js";

const normalize = createTraceNormalizer();
const START = 1_783_503_000_000_000_000n;
const MILLISECOND = 1_000_000n;

function span(spanId: string, parentSpanId: string, attributes: Attributes, startMs: bigint, endMs: bigint): SpanRecord {
  return spanRecord({
    spanId: spanId.padStart(16, "0"),
    parentSpanId: parentSpanId === "" ? "" : parentSpanId.padStart(16, "0"),
    name: String(attributes["openinference.span.kind"]),
    attributes,
    startTimeUnixNano: START + startMs * MILLISECOND,
    endTimeUnixNano: START + endMs * MILLISECOND,
  });
}

/** Spans in the order given, as the trace assembler hands them over (start time, then span id). */
function rebuild(spans: SpanRecord[]) {
  return rebuildCaseResult({ traceId: spans[0]!.traceId, spans, complete: true, reason: "complete", reopened: false, sources: [], bytes: 0, lastSpanAt: 0 }, normalize(spans));
}

const generation = (model: string, answer: string): Attributes => ({ "openinference.span.kind": "LLM", "llm.model_name": model, "output.value": answer });
const root = span("1", "", { "openinference.span.kind": "CHAIN", "input.value": "q?" }, 0n, 100n);

describe("the last generation of a request", () => {
  test("of two that started in the same millisecond is the one that ended later, whatever their span ids", () => {
    // The final generation's span id sorts first, so the trace lists the draft after it.
    const result = rebuild([root, span("2", "1", generation("m-final", "final answer"), 10n, 50n), span("3", "1", generation("m-draft", "draft answer"), 10n, 30n)]);
    assert.equal(result.rag_observation.generation.model, "m-final");
    assert.equal(result.output, "final answer");
  });

  test("of two that started and ended in the same millisecond, neither inside the other, is not known: no model or answer, a note on each", () => {
    // The trace lists them by span id, which is random: taking the later one in the trace took a neighbour's half the time.
    const result = rebuild([root, span("2", "1", generation("m-first", "first"), 10n, 10n), span("3", "1", generation("m-second", "second"), 10n, 10n)]);
    assert.deepEqual([result.rag_observation.generation.model, result.output], [null, null]);
    const notes = result.rag_observation.malformed_attributes.filter((note) => note.attribute === "generation");
    assert.deepEqual(
      notes.map((note) => note.span_id),
      ["2", "3"].map((id) => id.padStart(16, "0")),
    );
    assert.match(notes[0]!.error, /^this generation and 1 other ended at the same instant, neither inside another: which of them gave the request's answer is not known/);
  });

  test("is the one that ended last, even when another started after it (a title call beside the answer, ending first)", () => {
    const result = rebuild([root, span("2", "1", generation("m-long", "long"), 10n, 90n), span("3", "1", generation("m-later", "later"), 11n, 20n)]);
    assert.equal(result.rag_observation.generation.model, "m-long");
    assert.equal(result.output, "long");
  });
});
