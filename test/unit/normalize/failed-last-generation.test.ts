/**
 * A request whose last generation — the one that provides its answer — ended in error while the request's own span
 * ended well (collector/06-rebuild/last-generation.ts): a handler that returned a failed stream's partial text, or a
 * reply in place of the answer after catching a failed model call. The request is failed, its answer kept as the
 * output; a later generation that answered (a retry) makes it completed, and so does a generation around the failed
 * one that returned (an instrumentation's span of the same call), an answer that ended after a failed call beside it,
 * a request answer a generation that returned gave (up to whitespace), and a call its caller aborted (an AbortError, the openai
 * SDK's APIUserAbortError). The answer and model are those of the generation that ended last, not of the one that started
 * last; of several ending in the same millisecond, the one that ran after the others, and when none did, the status is
 * read over all of them (failed when one failed other than by an abort, naming each). The SDK's own spans through the real AI SDK are in
 * test/e2e/online/failed-generation-verdict.test.ts.
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
const ERROR = 2 as const;

function span(spanId: string, parentSpanId: string, attributes: Attributes, startMs: bigint, endMs: bigint, status: SpanRecord["status"] = { code: 0, message: "" }): SpanRecord {
  return spanRecord({
    spanId: spanId.padStart(16, "0"),
    parentSpanId: parentSpanId === "" ? "" : parentSpanId.padStart(16, "0"),
    name: attributes["openinference.span.kind"] === "LLM" ? "rag.generate" : "rag.request",
    attributes,
    startTimeUnixNano: START + startMs * MILLISECOND,
    endTimeUnixNano: START + endMs * MILLISECOND,
    status,
  });
}

function rebuild(spans: SpanRecord[]) {
  const result = rebuildCaseResult({ traceId: spans[0]!.traceId, spans, complete: true, reason: "complete", reopened: false, sources: [], bytes: 0, lastSpanAt: 0 }, normalize(spans));
  const generationNotes = result.rag_observation.malformed_attributes.filter((note) => note.attribute === "generation");
  return { status: result.execution_status, error: result.execution_error, output: result.output, model: result.rag_observation.generation.model, generationNotes };
}

const request = (answer: string | null): Attributes => ({ "openinference.span.kind": "CHAIN", "ragscope.stage": "request", "input.value": "q?", ...(answer === null ? {} : { "output.value": answer }) });
const generation = (answer: string | null, extra: Attributes = {}): Attributes => ({ "openinference.span.kind": "LLM", "llm.model_name": "m", ...(answer === null ? {} : { "output.value": answer }), ...extra });
const failure = (message: string) => ({ code: ERROR, message });

/** A generation its caller aborted (an AbortError, as the AI SDK adapter records a stream the user stopped), ending at 60 ms. */
function aborted(id: string, startMs: bigint): SpanRecord {
  const stopped = span(id, "1", generation(null), startMs, 60n, failure("stream aborted"));
  stopped.events.push({ name: "exception", timeUnixNano: stopped.endTimeUnixNano, attributes: { "exception.type": "AbortError", "exception.message": "stream aborted" }, body: null });
  return stopped;
}

/** A generation that failed with `message`, ending at 60 ms. */
const failedAt = (id: string, startMs: bigint, message: string) => span(id, "1", generation(null), startMs, 60n, failure(message));

describe("a request whose last generation failed", () => {
  test("the request span ended well with the stream's partial text: failed, the partial text its output, the error naming the generation", () => {
    const result = rebuild([span("1", "", request("Refunds reach the "), 0n, 100n), span("2", "1", generation(null), 10n, 50n, failure("provider overloaded"))]);
    assert.deepEqual([result.status, result.error.type, result.output], ["failed", "system_error", "Refunds reach the "]);
    assert.equal(
      result.error.message,
      `the request's last generation, "rag.generate" (span ${"2".padStart(16, "0")}), ended in error and no later generation answered, so the answer is missing or cut short: provider overloaded`,
    );
  });

  test("without a message of its own, the error says none was recorded", () => {
    const result = rebuild([span("1", "", request(null), 0n, 100n), span("2", "1", generation(null), 10n, 50n, failure(""))]);
    assert.deepEqual([result.status, result.output], ["failed", null]);
    assert.match(result.error.message ?? "", /: no error message recorded$/);
  });

  test("a retry that answered after it: completed, with the retry's answer", () => {
    const result = rebuild([span("1", "", request(null), 0n, 100n), span("2", "1", generation(null), 10n, 30n, failure("provider overloaded")), span("3", "1", generation("Within 7 days."), 40n, 60n)]);
    assert.deepEqual([result.status, result.error.type, result.error.message, result.output], ["completed", "none", null, "Within 7 days."]);
  });

  test("a failed generation before the last one that answered changes nothing; a failed one after it does, unless the request's answer is one a generation gave", () => {
    assert.equal(rebuild([span("1", "", request("a"), 0n, 100n), span("2", "1", generation("draft"), 10n, 30n, failure("x")), span("3", "1", generation("a"), 40n, 60n)]).status, "completed");
    assert.equal(rebuild([span("1", "", request(null), 0n, 100n), span("2", "1", generation("a"), 10n, 30n), span("3", "1", generation(null), 40n, 60n, failure("x"))]).status, "failed");
    // A follow-up call after the answer (suggestions, a summary) failed: the request's answer is the one generation 2 gave.
    assert.equal(rebuild([span("1", "", request("a"), 0n, 100n), span("2", "1", generation("a"), 10n, 30n), span("3", "1", generation(null), 40n, 60n, failure("x"))]).status, "completed");
  });

  test("a call beside the answer that failed before the answer ended (a title streamed in parallel): completed", () => {
    const result = rebuild([span("1", "", request(null), 0n, 400n), span("2", "1", generation("Within 7 days."), 10n, 300n), span("3", "1", generation(null), 20n, 30n, failure("rate limited"))]);
    // The answer is the one that ended last, as the status rule reads it: not the failed title's (none) that started last.
    assert.deepEqual([result.status, result.error.type, result.output], ["completed", "none", "Within 7 days."]);
    // Started together, the failed one ending first: the answer ended last.
    assert.equal(rebuild([span("1", "", request(null), 0n, 400n), span("2", "1", generation("Within 7 days."), 10n, 300n), span("3", "1", generation(null), 10n, 30n, failure("rate limited"))]).status, "completed");
  });

  test("the answer is the generation's that ended last, as the status reads it, not the one that started last", () => {
    const answerCall = (extra: Attributes = {}) => generation("Within 7 days.", { "llm.model_name": "m-answer", ...extra });
    const titleCall = generation("Refund timing", { "llm.model_name": "m-title" });
    // A title call started after the answer's and returned before it: the answer, and its model, are the answer call's.
    const titled = rebuild([span("1", "", request(null), 0n, 400n), span("2", "1", answerCall(), 10n, 300n), span("3", "1", titleCall, 20n, 30n)]);
    assert.deepEqual([titled.status, titled.output, titled.model], ["completed", "Within 7 days.", "m-answer"]);
    // The request span carries the answer: the model is the call's that gave it, whatever ended last.
    const carried = rebuild([span("1", "", request("Within 7 days."), 0n, 400n), span("2", "1", answerCall(), 10n, 30n), span("3", "1", titleCall, 40n, 60n)]);
    assert.deepEqual([carried.output, carried.model], ["Within 7 days.", "m-answer"]);
    // A follow-up that failed after the request's answer: completed, the model the answer's, not the failed call's.
    const followUp = rebuild([span("1", "", request("Within 7 days."), 0n, 400n), span("2", "1", answerCall(), 10n, 30n), span("3", "1", generation(null, { "llm.model_name": "m-follow-up" }), 40n, 60n, failure("x"))]);
    assert.deepEqual([followUp.status, followUp.output, followUp.model], ["completed", "Within 7 days.", "m-answer"]);
  });

  test("a failed last generation's partial text is the output of the failed request, never an earlier generation's answer", () => {
    const partial = rebuild([span("1", "", request(null), 0n, 100n), span("2", "1", generation("draft"), 10n, 30n), span("3", "1", generation("Refunds reach the "), 40n, 60n, failure("overloaded"))]);
    assert.deepEqual([partial.status, partial.output], ["failed", "Refunds reach the "]);
    // Started before a draft that returned, and ended after it: the failed one ended last, and recorded no text.
    const none = rebuild([span("1", "", request(null), 0n, 100n), span("2", "1", generation(null), 10n, 90n, failure("overloaded")), span("3", "1", generation("draft"), 20n, 30n)]);
    assert.deepEqual([none.status, none.output], ["failed", null]);
  });

  test("two generations that returned, ending at the same instant and neither inside the other: which answered is not known", () => {
    const result = rebuild([span("1", "", request(null), 0n, 100n), span("2", "1", generation("Within 7 days."), 10n, 60n), span("3", "1", generation("Refund timing"), 20n, 60n)]);
    assert.deepEqual([result.status, result.output, result.model], ["completed", null, null]);
    assert.deepEqual(
      result.generationNotes.map((note) => [note.span_id, note.kind]),
      ["2", "3"].map((id) => [id.padStart(16, "0"), "unreadable_value"]),
    );
    assert.match(result.generationNotes[0]!.error, /which of them gave the request's answer is not known, so what the answering generation decides — its answer \(the request span carries none\), model/);
    // One inside the other (a wrapper and its call): the outer one is what the application got.
    const wrapped = rebuild([span("1", "", request(null), 0n, 100n), span("2", "1", generation("Within 7 days.", { "llm.model_name": "m-outer" }), 10n, 60n), span("3", "2", generation("Within 7 days.", { "llm.model_name": "m-inner" }), 20n, 60n)]);
    assert.deepEqual([wrapped.output, wrapped.model, wrapped.generationNotes], ["Within 7 days.", "m-outer", []]);
  });

  test("of generations ending in the same millisecond, the one that started when the other ended ran after it: it gave the answer", () => {
    // A millisecond clock (Windows Python, traces converted from ms timestamps): a condense call, then a cache hit.
    const condense = span("2", "1", generation("refund timing?", { "llm.model_name": "small" }), 10n, 50n);
    const answer = span("3", "1", generation("Within 7 days.", { "llm.model_name": "m-answer" }), 50n, 50n);
    for (const order of [[condense, answer], [answer, condense]]) {
      const result = rebuild([span("1", "", request(null), 0n, 100n), ...order]);
      assert.deepEqual([result.status, result.output, result.model, result.generationNotes], ["completed", "Within 7 days.", "m-answer", []]);
    }
    // The call that ran after failed: it is the last, and the request failed with its partial text, as one ending a millisecond later would.
    const failedAfter = rebuild([span("1", "", request(null), 0n, 100n), condense, span("3", "1", generation("Refunds reach", { "llm.model_name": "m-answer" }), 50n, 50n, failure("overloaded"))]);
    assert.deepEqual([failedAfter.status, failedAfter.output, failedAfter.model], ["failed", "Refunds reach", "m-answer"]);
    assert.match(failedAfter.error.message ?? "", new RegExp(`^the request's last generation, "rag.generate" \\(span ${"3".padStart(16, "0")}\\), ended in error`));
    // Still not known: two that took no time at the same instant, after the first (either may have run last).
    const tie = rebuild([span("1", "", request(null), 0n, 100n), condense, answer, span("4", "1", generation("Refund timing"), 50n, 50n)]);
    assert.deepEqual([tie.output, tie.model, tie.generationNotes.length], [null, null, 3]);
  });

  test("failed generations ending together, which answered not known: failed, naming every one, not the one started last", () => {
    // Two that failed: failed, naming both, the answer and model not known.
    const both = rebuild([span("1", "", request(null), 0n, 100n), failedAt("2", 10n, "overloaded"), failedAt("3", 20n, "rate limited")]);
    assert.deepEqual([both.status, both.error.type, both.output, both.model, both.generationNotes.length], ["failed", "system_error", null, null, 2]);
    assert.equal(
      both.error.message,
      `the request's last 2 generations ended at the same instant, none inside another, and none of them returned, so the answer is missing or cut short; 2 ended in error: ` +
        `"rag.generate" (span ${"2".padStart(16, "0")}): overloaded; "rag.generate" (span ${"3".padStart(16, "0")}): rate limited`,
    );
    // Many: the first few named, the rest counted; a timeout only when every one says so.
    const many = rebuild([span("1", "", request(null), 0n, 100n), ...["2", "3", "4", "5", "6"].map((id, index) => failedAt(id, 10n + BigInt(index), `e${id}`))]);
    assert.match(many.error.message ?? "", /5 ended in error: .*: e2; .*: e3; .*: e4; and 2 more$/);
    const timeout = (id: string, startMs: bigint) => span(id, "1", generation(null, { "error.type": "timeout" }), startMs, 60n, failure("deadline"));
    assert.equal(rebuild([span("1", "", request(null), 0n, 100n), timeout("2", 10n), timeout("3", 20n)]).error.type, "timeout");
    assert.equal(rebuild([span("1", "", request(null), 0n, 100n), timeout("2", 10n), failedAt("3", 20n, "x")]).error.type, "system_error");
  });

  test("one generation aborted by the user and one that failed, ending together: failed, naming the failure, whichever started later", () => {
    for (const spans of [[failedAt("2", 10n, "boom"), aborted("3", 20n)], [aborted("2", 10n), failedAt("3", 20n, "boom")]]) {
      const result = rebuild([span("1", "", request(null), 0n, 100n), ...spans]);
      const failedId = spans.find((item) => item.status.message === "boom")!.spanId;
      assert.equal(result.status, "failed", `the failed span is ${failedId}`);
      assert.match(result.error.message ?? "", new RegExp(`last 2 generations ended at the same instant, .*; 1 ended in error \\(the other was stopped by the caller\\): "rag.generate" \\(span ${failedId}\\): boom$`));
    }
    // All aborted: completed.
    assert.equal(rebuild([span("1", "", request(null), 0n, 100n), aborted("2", 10n), aborted("3", 20n)]).status, "completed");
  });

  test("the request's answer is a generation's up to surrounding whitespace and runs of spaces; another wording is not", () => {
    const followedBy = (requestAnswer: string) =>
      rebuild([span("1", "", request(requestAnswer), 0n, 100n), span("2", "1", generation("Within 7 days."), 10n, 30n), span("3", "1", generation(null), 40n, 60n, failure("follow-up failed"))]).status;
    assert.equal(followedBy("Within 7 days.\n"), "completed");
    assert.equal(followedBy("  Within  7\n\tdays. "), "completed");
    // No fuzzy matching: case and punctuation make another text, and the failed follow-up decides.
    assert.equal(followedBy("within 7 days"), "failed");
  });

  test("an openai call the user aborted, as @opentelemetry/instrumentation-openai records it (error.type APIUserAbortError, no exception event): completed", () => {
    const aborted = span("2", "1", generation(null, { "error.type": "APIUserAbortError" }), 10n, 50n, failure("Request was aborted."));
    assert.deepEqual(aborted.events, []);
    const result = rebuild([span("1", "", request("Refunds reach the "), 0n, 100n), aborted]);
    assert.deepEqual([result.status, result.error.type, result.output], ["completed", "none", "Refunds reach the "]);
    // Recorded as an exception by another instrumentation.
    const recorded = span("2", "1", generation(null), 10n, 50n, failure("Request was aborted."));
    recorded.events.push({ name: "exception", timeUnixNano: recorded.endTimeUnixNano, attributes: { "exception.type": "APIUserAbortError", "exception.message": "Request was aborted." }, body: null });
    assert.equal(rebuild([span("1", "", request("Refunds reach the "), 0n, 100n), recorded]).status, "completed");
    // Another error of the openai SDK still fails the request.
    const other = span("2", "1", generation(null, { "error.type": "APIConnectionError" }), 10n, 50n, failure("Connection error."));
    assert.equal(rebuild([span("1", "", request("Refunds reach the "), 0n, 100n), other]).status, "failed");
  });

  test("a generation its caller aborted (an AbortError: a user pressing stop) did not fail: completed, with what it had", () => {
    const aborted = span("2", "1", generation(null), 10n, 50n, failure("stream aborted"));
    aborted.events.push({ name: "exception", timeUnixNano: aborted.endTimeUnixNano, attributes: { "exception.type": "AbortError", "exception.message": "stream aborted" }, body: null });
    const result = rebuild([span("1", "", request("Refunds reach the "), 0n, 100n), aborted]);
    assert.deepEqual([result.status, result.error.type, result.output], ["completed", "none", "Refunds reach the "]);
    // As OpenTelemetry JS records an AbortSignal's DOMException (by its code, 20) and Node's aborts (ABORT_ERR).
    for (const [type, message] of [["20", "This operation was aborted"], ["ABORT_ERR", "The operation was aborted"]] as const) {
      const recorded = span("2", "1", generation(null), 10n, 50n, failure(message));
      recorded.events.push({ name: "exception", timeUnixNano: recorded.endTimeUnixNano, attributes: { "exception.type": type, "exception.message": message }, body: null });
      assert.equal(rebuild([span("1", "", request("Refunds reach the "), 0n, 100n), recorded]).status, "completed", type);
    }
    // Another DOMException's code 20 that is no abort still fails.
    const other = span("2", "1", generation(null), 10n, 50n, failure("quota"));
    other.events.push({ name: "exception", timeUnixNano: other.endTimeUnixNano, attributes: { "exception.type": "20", "exception.message": "quota exceeded" }, body: null });
    assert.equal(rebuild([span("1", "", request("Refunds reach the "), 0n, 100n), other]).status, "failed");
  });

  test("a failed generation ending at the same instant as one that returned (a wrapper and its call, a millisecond clock) does not decide", () => {
    const result = rebuild([span("1", "", request(null), 0n, 100n), span("2", "1", generation(null), 10n, 60n, failure("wrapper failed")), span("3", "2", generation("Within 7 days."), 20n, 60n)]);
    assert.equal(result.status, "completed");
    assert.equal(rebuild([span("1", "", request(null), 0n, 100n), span("2", "1", generation(null), 10n, 70n, failure("wrapper failed")), span("3", "2", generation("Within 7 days."), 20n, 60n)]).status, "failed");
    // Two calls side by side ending together, the later-started one failing: the other may have answered.
    assert.equal(rebuild([span("1", "", request(null), 0n, 100n), span("2", "1", generation("Within 7 days."), 10n, 60n), span("3", "1", generation(null), 20n, 60n, failure("title failed"))]).status, "completed");
  });

  test("inside a generation span that returned (an instrumentation's span of the same call around its failed attempt): completed", () => {
    const result = rebuild([span("1", "", request("Within 7 days."), 0n, 100n), span("2", "1", generation("Within 7 days."), 10n, 60n), span("3", "2", generation(null), 20n, 30n, failure("attempt 1 failed"))]);
    assert.deepEqual([result.status, result.error.type, result.output], ["completed", "none", "Within 7 days."]);
  });

  test("a generation that says it timed out (error.type timeout) makes the request's error a timeout", () => {
    const result = rebuild([span("1", "", request(null), 0n, 100n), span("2", "1", generation(null, { "error.type": "timeout" }), 10n, 50n, failure("deadline passed"))]);
    assert.deepEqual([result.status, result.error.type], ["failed", "timeout"]);
  });

  test("a failed root is the request's error, with its own message, as before", () => {
    const result = rebuild([span("1", "", request(null), 0n, 100n, failure("handler threw")), span("2", "1", generation(null), 10n, 50n, failure("provider overloaded"))]);
    assert.deepEqual([result.status, result.error.type, result.error.message], ["failed", "system_error", "handler threw"]);
  });
});
