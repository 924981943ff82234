/**
 * A sampler that says how many spans it left out. Under the tracer provider
 * ragscope starts, the sampler decides before a span exists: a span it leaves
 * out is never recording, never reaches a span processor, and so was never
 * counted in `statistics().sampledOut` — which stayed 0 however many requests
 * sampling dropped. This wrapper counts each span the wrapped sampler does not
 * record (the root of a trace the rate rejects, each of its children, and a
 * span whose remote parent was not sampled), so the count means the same as
 * under an application's own provider, where ragscope's processor counts the
 * spans of the traces its rate rejects.
 */
import type { Attributes, Context, Link, SpanKind } from "@opentelemetry/api";
import { SamplingDecision, type Sampler, type SamplingResult } from "@opentelemetry/sdk-trace-base";

export class CountedSampler implements Sampler {
  constructor(
    private readonly sampler: Sampler,
    private readonly countSampledOut: () => void,
  ) {}

  shouldSample(context: Context, traceId: string, spanName: string, spanKind: SpanKind, attributes: Attributes, links: Link[]): SamplingResult {
    const result = this.sampler.shouldSample(context, traceId, spanName, spanKind, attributes, links);
    if (result.decision === SamplingDecision.NOT_RECORD) this.countSampledOut();
    return result;
  }

  toString(): string {
    return this.sampler.toString();
  }
}
