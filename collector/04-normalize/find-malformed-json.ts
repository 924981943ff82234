/**
 * Finds the attributes of a span that a convention defines as JSON text and
 * that do not parse. The mappers read such a value as absent (a document
 * without metadata, a retrieval without documents, a generation without
 * messages), which would look like "nothing recorded"; this list lets the
 * rebuild say why on the Case Result (`rag_observation.malformed_attributes`)
 * and the worker count it (`ragscope_malformed_json_attributes_total`).
 *
 * Only string values are checked: a structured attribute (an OTLP array or
 * key-value list) is already parsed. Empty strings are not JSON either.
 */
import { GenAi, OpenInference, OpenLlmetry } from "../../contracts/span-attributes.js";
import type { Attributes, SpanRecord } from "../00-otlp/span-record.js";

export interface MalformedAttribute {
  /** The attribute key; for an event attribute, `<event name>: <key>`. */
  attribute: string;
  /** The parser's message, e.g. "Unexpected end of JSON input". */
  error: string;
}

/** Keys that always hold JSON text. */
const JSON_KEYS: ReadonlySet<string> = new Set([
  OpenInference.metadata,
  OpenInference.llmInvocationParameters,
  GenAi.retrievalDocuments,
  GenAi.inputMessages,
  GenAi.outputMessages,
  GenAi.systemInstructions,
  OpenLlmetry.entityInput,
  OpenLlmetry.entityOutput,
]);

/** OpenInference document metadata under any document list (`retrieval.documents.N.document.metadata`, reranker lists). */
const DOCUMENT_METADATA_SUFFIX = `.${OpenInference.documentMetadata}`;

/** Event attributes that hold JSON text, by event name. */
const JSON_EVENT_KEYS: Readonly<Record<string, readonly string[]>> = {
  [OpenLlmetry.queryResultEvent]: [OpenLlmetry.queryResultMetadata],
  [GenAi.choiceEvent]: [GenAi.eventContent],
  [GenAi.operationDetailsEvent]: [GenAi.inputMessages, GenAi.outputMessages],
};

function parseError(value: string): string | null {
  try {
    JSON.parse(value);
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

function holdsJson(attributes: Attributes, key: string): boolean {
  if (JSON_KEYS.has(key) || key.endsWith(DOCUMENT_METADATA_SUFFIX)) return true;
  // input.value / output.value are JSON only when their mime type says so.
  if (key === OpenInference.inputValue) return attributes[OpenInference.inputMimeType] === "application/json";
  if (key === OpenInference.outputValue) return attributes[OpenInference.outputMimeType] === "application/json";
  return false;
}

export function findMalformedJson(span: SpanRecord): MalformedAttribute[] {
  const found: MalformedAttribute[] = [];
  for (const [key, value] of Object.entries(span.attributes)) {
    if (typeof value !== "string" || !holdsJson(span.attributes, key)) continue;
    const error = parseError(value);
    if (error !== null) found.push({ attribute: key, error });
  }
  for (const event of span.events) {
    for (const key of JSON_EVENT_KEYS[event.name] ?? []) {
      const value = event.attributes[key];
      if (typeof value !== "string") continue;
      const error = parseError(value);
      if (error !== null) found.push({ attribute: `${event.name}: ${key}`, error });
    }
  }
  return found;
}
