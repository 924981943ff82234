/**
 * Adds a span processor to a tracer provider the application already
 * registered, so ragscope joins an existing OpenTelemetry setup instead of
 * replacing it.
 *
 * OTel JS 1.x providers have a public `addSpanProcessor`. OTel JS 2.x removed
 * it (processors are constructor options only), so for 2.x providers the
 * processor is appended to the provider's MultiSpanProcessor list
 * (`_activeSpanProcessor._spanProcessors`), which every tracer of the provider
 * shares, including tracers created before. Both shapes are checked before
 * use; any other provider is reported as not attachable, never guessed at.
 */
import type { TracerProvider } from "@opentelemetry/api";
import type { SpanProcessor } from "@opentelemetry/sdk-trace-base";
import { failure, success, type Result } from "../../core/result.js";

interface SdkTwoProvider {
  _activeSpanProcessor: { _spanProcessors: SpanProcessor[] };
  _tracerOptions?: { spanLimits?: { attributeCountLimit?: number } };
}

interface SdkOneProvider {
  addSpanProcessor(processor: SpanProcessor): void;
  _config?: { spanLimits?: { attributeCountLimit?: number } };
}

export interface Attachment {
  /** Takes the processor out of the provider again (2.x); a 1.x provider keeps it, shut down. */
  detach(): void;
}

/**
 * @param attributeCountLimit raise the provider's span attribute count limit to
 *   at least this (null: leave it)
 */
export function attachSpanProcessor(
  provider: TracerProvider,
  processor: SpanProcessor,
  attributeCountLimit: number | null,
): Result<Attachment, string> {
  if (isSdkTwoProvider(provider)) {
    const processors = provider._activeSpanProcessor._spanProcessors;
    processors.push(processor);
    raiseLimit(provider._tracerOptions?.spanLimits, attributeCountLimit);
    return success({
      detach: () => {
        const index = processors.indexOf(processor);
        if (index !== -1) processors.splice(index, 1);
      },
    });
  }
  if (isSdkOneProvider(provider)) {
    provider.addSpanProcessor(processor);
    raiseLimit(provider._config?.spanLimits, attributeCountLimit);
    return success({ detach: () => undefined });
  }
  return failure(`the registered tracer provider (${provider.constructor?.name ?? "unknown"}) is not an OpenTelemetry SDK provider, so no span processor can be added to it`);
}

function isSdkTwoProvider(provider: TracerProvider): provider is TracerProvider & SdkTwoProvider {
  const active = (provider as Partial<SdkTwoProvider>)._activeSpanProcessor;
  return typeof active === "object" && active !== null && Array.isArray(active._spanProcessors);
}

function isSdkOneProvider(provider: TracerProvider): provider is TracerProvider & SdkOneProvider {
  return typeof (provider as Partial<SdkOneProvider>).addSpanProcessor === "function";
}

function raiseLimit(limits: { attributeCountLimit?: number } | undefined, minimum: number | null): void {
  if (minimum === null || limits === undefined) return;
  if ((limits.attributeCountLimit ?? 0) < minimum) limits.attributeCountLimit = minimum;
}
