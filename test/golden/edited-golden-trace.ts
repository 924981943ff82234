/**
 * A recorded golden trace (test/golden/traces/<name>.otlp.json) opened for an
 * edit: a test changes what one span carried — an attribute's value, or the
 * attribute removed — to make a trace the instrumentation would write in a
 * case the recording did not meet, then replays it (replay-golden.ts).
 */
import { readFile } from "node:fs/promises";
import { tracePath } from "./record-goldens.js";

interface OtlpAttribute {
  key: string;
  /** OTLP/JSON's AnyValue; a double may be the text "NaN" or "Infinity", as proto3 JSON writes those. */
  value: { stringValue?: string; intValue?: string; doubleValue?: number | string; boolValue?: boolean; arrayValue?: { values: OtlpAttribute["value"][] } };
}
export interface OtlpSpan {
  name: string;
  spanId: string;
  attributes: OtlpAttribute[];
  events?: { name: string; attributes: OtlpAttribute[] }[];
  /** OTLP/JSON writes 0 or leaves it out. */
  droppedEventsCount?: number;
  droppedAttributesCount?: number;
}
interface OtlpJson {
  resourceSpans: { resource?: { attributes?: OtlpAttribute[] }; scopeSpans: { spans: OtlpSpan[] }[] }[];
}

export interface EditedGoldenTrace {
  /**
   * The one span of that name (and, when given, for which `which` holds: spans of one name told apart by what they
   * carry); throws when there is none or more than one, so an edit never lands on the wrong span.
   */
  span(name: string, which?: (span: OtlpSpan) => boolean): OtlpSpan;
  /** The attribute's text; throws when the span does not carry it as text. */
  text(span: OtlpSpan, key: string): string;
  setText(span: OtlpSpan, key: string, value: string): void;
  /** Replaces the attribute's OTLP/JSON value, e.g. `{ doubleValue: "NaN" }`. */
  setValue(span: OtlpSpan, key: string, value: OtlpAttribute["value"]): void;
  remove(span: OtlpSpan, key: string): void;
  /** Adds an attribute the span does not carry (throws when it does: an edit never replaces by accident). */
  add(span: OtlpSpan, key: string, value: OtlpAttribute["value"]): void;
  /** Replaces an attribute's value on the span's `position`-th event named `eventName` (counting from 0). */
  setEventValue(span: OtlpSpan, eventName: string, position: number, key: string, value: OtlpAttribute["value"]): void;
  /**
   * Removes the span's first `count` events and adds them to its dropped_events_count: what an SDK past its event
   * count limit (OTEL_SPAN_EVENT_COUNT_LIMIT) sends, as it drops the oldest events.
   */
  dropOldestEvents(span: OtlpSpan, count: number): void;
  /**
   * Removes the span's attributes whose key starts with one of `prefixes` and adds them to its
   * dropped_attributes_count: what an SDK past its attribute count limit (OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT) sends, as it
   * drops the attributes set after it. Returns how many were dropped; throws when none was (an edit that did nothing).
   */
  dropAttributes(span: OtlpSpan, prefixes: readonly string[]): number;
  /**
   * Removes the span's first `count` attributes, in the order the recording lists them (the order they were set), and
   * adds them to its dropped_attributes_count: what Python's SDK past its limit sends, as it evicts the OLDEST attribute
   * (opentelemetry-sdk BoundedAttributes, popitem(last=False)). Throws when the span carries fewer.
   */
  dropOldestAttributes(span: OtlpSpan, count: number): void;
  /**
   * Sets `telemetry.sdk.language` on every resource of the trace (replacing it when there): the SDK the spans say they
   * come from, for a recording whose resource does not name it (the JS goldens pass their own resource).
   */
  setSdkLanguage(language: string): void;
  /**
   * A copy of the span under `spanId` (same parent, times and attributes), placed just before it in its scope: a
   * second span the instrumentation would write for a second call of the same step. Throws when the id is taken.
   */
  copySpan(span: OtlpSpan, spanId: string): OtlpSpan;
  /** The edited trace as OTLP/JSON text. */
  json(): string;
}

export async function editGoldenTrace(name: string): Promise<EditedGoldenTrace> {
  return editRecordedTrace(tracePath(name), `golden ${name}`);
}

/** Any recorded OTLP/JSON trace (e.g. test/data/openllmetry-cohere-rerank/), opened as editGoldenTrace opens a golden; `name` names it in errors. */
export async function editRecordedTrace(path: string, name: string): Promise<EditedGoldenTrace> {
  const trace = JSON.parse(await readFile(path, "utf8")) as OtlpJson;
  const spans = trace.resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans));
  const attribute = (span: OtlpSpan, key: string) => {
    const found = span.attributes.find((item) => item.key === key);
    if (found === undefined) throw new Error(`span "${span.name}" of ${name} carries no ${key}`);
    return found;
  };
  return {
    span(spanName, which = () => true) {
      const named = spans.filter((span) => span.name === spanName && which(span));
      if (named.length !== 1) throw new Error(`${name} has ${named.length} spans named "${spanName}", not one`);
      return named[0]!;
    },
    text(span, key) {
      const value = attribute(span, key).value.stringValue;
      if (value === undefined) throw new Error(`${key} of span "${span.name}" is no text`);
      return value;
    },
    setText(span, key, value) {
      attribute(span, key).value = { stringValue: value };
    },
    setValue(span, key, value) {
      attribute(span, key).value = value;
    },
    remove(span, key) {
      attribute(span, key);
      span.attributes = span.attributes.filter((item) => item.key !== key);
    },
    add(span, key, value) {
      if (span.attributes.some((item) => item.key === key)) throw new Error(`span "${span.name}" of ${name} already carries ${key}`);
      span.attributes.push({ key, value });
    },
    setEventValue(span, eventName, position, key, value) {
      const event = (span.events ?? []).filter((item) => item.name === eventName)[position];
      if (event === undefined) throw new Error(`span "${span.name}" of ${name} has no event ${eventName} [${position}]`);
      const found = event.attributes.find((item) => item.key === key);
      if (found === undefined) throw new Error(`event ${eventName} [${position}] of span "${span.name}" carries no ${key}`);
      found.value = value;
    },
    dropOldestEvents(span, count) {
      const events = span.events ?? [];
      if (events.length < count) throw new Error(`span "${span.name}" of ${name} has ${events.length} events, not ${count} to drop`);
      span.events = events.slice(count);
      span.droppedEventsCount = (span.droppedEventsCount ?? 0) + count;
    },
    dropAttributes(span, prefixes) {
      const kept = span.attributes.filter((item) => !prefixes.some((prefix) => item.key.startsWith(prefix)));
      const dropped = span.attributes.length - kept.length;
      if (dropped === 0) throw new Error(`span "${span.name}" of ${name} carries no attribute under ${prefixes.join(", ")}`);
      span.attributes = kept;
      span.droppedAttributesCount = (span.droppedAttributesCount ?? 0) + dropped;
      return dropped;
    },
    dropOldestAttributes(span, count) {
      if (span.attributes.length < count) throw new Error(`span "${span.name}" of ${name} carries ${span.attributes.length} attributes, not ${count} to drop`);
      span.attributes = span.attributes.slice(count);
      span.droppedAttributesCount = (span.droppedAttributesCount ?? 0) + count;
    },
    setSdkLanguage(language) {
      for (const resourceSpans of trace.resourceSpans) {
        const resource = (resourceSpans.resource ??= {});
        resource.attributes = [...(resource.attributes ?? []).filter((item) => item.key !== "telemetry.sdk.language"), { key: "telemetry.sdk.language", value: { stringValue: language } }];
      }
    },
    copySpan(span, spanId) {
      if (spans.some((item) => item.spanId === spanId)) throw new Error(`${name} already has a span ${spanId}`);
      const copy = { ...(structuredClone(span) as OtlpSpan), spanId };
      const scope = trace.resourceSpans.flatMap((resource) => resource.scopeSpans).find((item) => item.spans.includes(span))!;
      scope.spans.splice(scope.spans.indexOf(span), 0, copy);
      spans.push(copy);
      return copy;
    },
    json: () => JSON.stringify(trace),
  };
}
