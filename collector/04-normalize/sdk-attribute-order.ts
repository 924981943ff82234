/**
 * Which attributes a span's SDK drops past its count limit (OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT), as far as the span's
 * resource says: its `telemetry.sdk.language`, which every OpenTelemetry SDK sets on its default resource (each span
 * record carries its resource's attributes: collector/00-otlp/span-record.ts).
 *
 * SDKs differ, and what a lost attribute leaves behind depends on which one sent the span:
 * - the JS SDK (`nodejs`, `webjs`): `Span.setAttribute` past the limit drops the NEW attribute and keeps the ones it
 *   has, so a span keeps the attributes set first and loses those set last — a list recorded in order keeps 0..k and
 *   loses its tail whole, with no index missing;
 * - Python's (`python`: opentelemetry-sdk `BoundedAttributes`, `popitem(last=False)`) evicts the OLDEST attribute to
 *   make room, so a span keeps the attributes set last — a list loses its FIRST items (a gap at index 0), or the
 *   fields its first item set first, and the attributes set when the span started go before any of them.
 * Other languages, and a resource that does not say, are not assumed either way: a reader deduces what a drop spared
 * only from what holds in both orders, and says so.
 */
import type { SpanRecord } from "../00-otlp/span-record.js";
import { attributesDroppedBySdk } from "./attributes-dropped-by-sdk.js";

/** The OTel resource attribute naming the SDK's language (semantic conventions `telemetry.sdk.language`). */
export const TELEMETRY_SDK_LANGUAGE = "telemetry.sdk.language";

const KEEPS_FIRST_ATTRIBUTES: readonly string[] = ["nodejs", "webjs"];

export interface SdkAttributeOrder {
  /** True when the span's SDK is known to keep the attributes set first (the JS SDK's): deductions from that order hold. */
  keepsFirst: boolean;
  /** The resource's `telemetry.sdk.language`, or null when it does not say (named in notes). */
  language: string | null;
}

export function sdkAttributeOrder(span: SpanRecord): SdkAttributeOrder {
  const language = span.resource[TELEMETRY_SDK_LANGUAGE];
  const known = typeof language === "string" && language !== "" ? language : null;
  return { keepsFirst: known !== null && KEEPS_FIRST_ATTRIBUTES.includes(known), language: known };
}

/**
 * Whether an attribute set when the span started may be gone: its SDK dropped attributes past its count limit and is
 * not known to keep the ones set first (one that evicts the oldest, Python's, drops those first). What the readers of
 * calls that lost their request type or operation name ask before reading a span without it as such a call.
 */
export function mayHaveEvictedFirstAttributes(span: SpanRecord): boolean {
  return attributesDroppedBySdk(span) > 0 && !sdkAttributeOrder(span).keepsFirst;
}

/** The first part of a note on an attribute set when the span started that such a span no longer carries; `what`, e.g. "the request type". */
export function evictedFirstPhrase(span: SpanRecord, what: string): string {
  return `is absent, and the span's SDK dropped attributes past its count limit; ${sdkLanguagePhrase(sdkAttributeOrder(span))}, and an SDK that evicts the oldest (Python's) drops ${what} first, set when the span started`;
}

/** How a note names the span's SDK when its order is not the JS one: its language, or that it gives none. */
export function sdkLanguagePhrase(order: SdkAttributeOrder): string {
  return order.language === null ? "the span's resource does not name its SDK's language (no telemetry.sdk.language)" : `the span's SDK is ${JSON.stringify(order.language.slice(0, 40))} (telemetry.sdk.language)`;
}

/**
 * What a list with no gap may have lost, said for an SDK whose order is not the JS one: both orders, since neither is
 * relied on. @param plural the list's items, e.g. `completions`; @param singular one of them
 */
export function eitherOrderLoss(order: SdkAttributeOrder, singular: string, plural: string): string {
  return (
    `${sdkLanguagePhrase(order)}, whose order of dropping is not relied on: an SDK that keeps the attributes set first (the JS SDK) drops a list's last ${plural} whole, with no index missing, ` +
    `and one that evicts the oldest (Python's) its first ${plural}, or the fields the first ${singular} set first`
  );
}
