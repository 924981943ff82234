/**
 * Head sampling that is consistent by trace id: the decision is a pure function
 * of the trace id and the rate, so every span of a request — and a feedback
 * span recorded hours later for the same trace — gets the same answer in any
 * process, with no state shared between them.
 *
 * The randomness is the rightmost 56 bits of the trace id, as the OTel
 * specification's consistent probability sampling reads it (W3C Trace Context
 * Level 2 makes those bits random); a trace is kept when they are at or above
 * the rejection threshold (1 - rate) × 2^56 (OTel trace SDK, "TraceIdRatioBased"
 * and tracestate probability sampling, `th`).
 */
import { SamplingDecision, type Sampler, type SamplingResult } from "@opentelemetry/sdk-trace-base";

const RANDOM_BITS_SCALE = 2 ** 56;

/** True when a trace with this id is kept at this rate (0 keeps none, 1 keeps all). */
export function isTraceSampled(traceId: string, rate: number): boolean {
  if (rate >= 1) return true;
  if (!(rate > 0)) return false;
  // 14 hex digits = 56 bits; the double rounds above 2^53 but rounding is
  // monotonic and deterministic, so the decision stays a function of the id.
  const randomness = Number.parseInt(traceId.slice(-14), 16);
  if (!Number.isFinite(randomness) || traceId.length !== 32) return false;
  return randomness >= (1 - rate) * RANDOM_BITS_SCALE;
}

/** A root sampler for the OTel SDK with the same decision (wrap it in ParentBasedSampler). */
export class TraceIdRatioSampler implements Sampler {
  constructor(private readonly rate: number) {
    if (!(rate >= 0 && rate <= 1)) throw new Error(`sample rate ${rate} must be between 0 and 1`);
  }

  shouldSample(_context: unknown, traceId: string): SamplingResult {
    return { decision: isTraceSampled(traceId, this.rate) ? SamplingDecision.RECORD_AND_SAMPLED : SamplingDecision.NOT_RECORD };
  }

  toString(): string {
    return `RagscopeTraceIdRatio{${this.rate}}`;
  }
}
