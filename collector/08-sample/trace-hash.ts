/**
 * The sampling draw of a trace: a number in [0, 1) that depends on the trace id
 * alone, so every process, every restart and every evaluator that samples the
 * same trace draws the same number (issue 6: "Deterministic by trace id, so
 * every evaluator sees the same sample").
 *
 * draw = the first 48 bits of SHA-256(lower-case trace id) / 2^48.
 * SHA-256 rather than the trace id's own bits: W3C trace ids are random only
 * when the producer follows the spec's "random" flag, and ids from other
 * systems (or tests) are often sequential.
 */
import { createHash } from "node:crypto";

const TWO_TO_THE_48 = 2 ** 48;

export function traceSampleDraw(traceId: string): number {
  const digest = createHash("sha256").update(traceId.trim().toLowerCase()).digest();
  return digest.readUIntBE(0, 6) / TWO_TO_THE_48;
}

/** True when the trace falls in a sample of the given rate (0 = none, 1 = every trace). */
export function inSample(traceId: string, rate: number): boolean {
  return traceSampleDraw(traceId) < rate;
}
