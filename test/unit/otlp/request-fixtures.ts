/**
 * Requests for the receiver's byte-level readers (the split by trace id and
 * the direct reading into span records), which are both held to the decoding
 * path: recorded SDK requests, small hand-made spans, and the same mutations
 * of a body on every run.
 */
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import type { RequestLimits } from "../../../collector/00-otlp/enforce-request-limits.js";
import { defaultReceiverBounds } from "../../../collector/01-receive/start-receiver.js";
import type { KeyValue, SpanDocument } from "../../../collector/00-otlp/traces-document.js";
import { eightSpanRequest } from "../../bench/eight-span-request.js";
import { startSpanRecorder, toOtlpProtobuf } from "../../support/recorded-spans.js";
import { sampleSpan } from "./sample-traces-document.js";

/** The receiver's default limits (start-receiver.ts). */
export const limits: RequestLimits = defaultReceiverBounds.limits;

export const text = (key: string, value: string): KeyValue => ({ key, value: { stringValue: value } });

/** Span `spanId` of trace `traceId`: a client span with a name, a duration and nothing else unless given. */
export function span(traceId: string, spanId: string, overrides: Partial<SpanDocument> = {}): SpanDocument {
  return sampleSpan({ traceId, spanId, name: `span ${spanId}`, kind: 1, startTimeUnixNano: 1_700_000_000_000_000_000n, endTimeUnixNano: 1_700_000_000_100_000_000n, ...overrides });
}

export const trace = (index: number) => index.toString(16).padStart(32, "a");
export const spanId = (index: number) => index.toString(16).padStart(16, "b");

/** Three SDK export requests of six eight-span RAG requests each. */
export async function recordedRequests(): Promise<Uint8Array[]> {
  const recorder = startSpanRecorder("policy-assistant");
  const bodies: Uint8Array[] = [];
  try {
    for (let batch = 0; batch < 3; batch += 1) {
      for (let index = 0; index < 6; index += 1) await eightSpanRequest(batch * 10 + index);
      const finished: ReadableSpan[] = recorder.spans();
      bodies.push(toOtlpProtobuf(finished));
      recorder.reset();
    }
  } finally {
    await recorder.shutdown();
  }
  return bodies;
}

/**
 * `rounds` bodies, each a base (in turn) with one to three edits: a letter written over a byte (inside a text it
 * stays valid, elsewhere it breaks a tag, a length or an id), a random byte, bytes cut out, the body cut short, or
 * a byte inserted. A small linear congruential generator from `seed`: the same bodies every run.
 */
export function* mutatedBodies(bases: readonly Uint8Array[], seed: number, rounds: number): Generator<{ round: number; body: Uint8Array }> {
  let state = seed;
  const random = (below: number) => {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    return state % below;
  };
  for (let round = 0; round < rounds; round += 1) {
    const base = bases[round % bases.length]!;
    let body: Uint8Array = Uint8Array.from(base);
    for (let edit = 0; edit <= random(2); edit += 1) {
      const at = random(body.byteLength);
      const kind = random(20);
      if (kind < 12) body[at] = 0x61 + random(26);
      else if (kind < 15) body[at] = random(256);
      else if (kind < 17) body = Buffer.concat([body.subarray(0, at), body.subarray(Math.min(body.byteLength, at + 1 + random(8)))]);
      else if (kind < 19) body = body.subarray(0, at);
      else body = Buffer.concat([body.subarray(0, at), Uint8Array.of(random(256)), body.subarray(at)]);
    }
    yield { round, body };
  }
}
