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
  value: { stringValue?: string; intValue?: string; doubleValue?: number | string; boolValue?: boolean };
}
export interface OtlpSpan {
  name: string;
  spanId: string;
  attributes: OtlpAttribute[];
}
interface OtlpJson {
  resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[];
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
  /** The edited trace as OTLP/JSON text. */
  json(): string;
}

export async function editGoldenTrace(name: string): Promise<EditedGoldenTrace> {
  const trace = JSON.parse(await readFile(tracePath(name), "utf8")) as OtlpJson;
  const spans = trace.resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans));
  const attribute = (span: OtlpSpan, key: string) => {
    const found = span.attributes.find((item) => item.key === key);
    if (found === undefined) throw new Error(`span "${span.name}" of golden ${name} carries no ${key}`);
    return found;
  };
  return {
    span(spanName, which = () => true) {
      const named = spans.filter((span) => span.name === spanName && which(span));
      if (named.length !== 1) throw new Error(`golden ${name} has ${named.length} spans named "${spanName}", not one`);
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
    json: () => JSON.stringify(trace),
  };
}
