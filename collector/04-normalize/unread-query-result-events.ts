/**
 * What of an OpenLLMetry vector search's `db.query.result` events (one a hit:
 * `db.query.result.{id,score,distance,metadata,document}`; Chroma, and
 * Traceloop's manual vector DB tracing) its reader (openllmetry-mapper.ts
 * `readVectorQuery`) could not read, for the Case Result's
 * `malformed_attributes` (kind `unreadable_value`): an id that is no text or
 * number, a score that is no number, a document that is no text, metadata
 * that is no JSON object — each read as absent, the id and the score then
 * taken from the hit's own metadata when it has them — and a hit with neither
 * an id nor a document. The hit keeps its rank either way: each event is one
 * hit, in rank order. Metadata that does not parse is find-malformed-json.ts's
 * to name. The events carry no index, so a hit that is not there cannot be told
 * from one never returned.
 */
import { OpenLlmetry } from "../../contracts/span-attributes.js";
import type { SpanEventRecord } from "../00-otlp/span-record.js";
import type { MalformedAttribute } from "./find-malformed-json.js";
import { describeValue } from "./explain-unread-value.js";
import { parsedJsonValue } from "./parsed-json-value.js";
import { toObservedDocument } from "./read-documents.js";
import { UNREAD_PARTS_CONSEQUENCE, unreadDocumentFields } from "./unread-document-fields.js";

/** The hit's fields as toObservedDocument reads them. */
export function queryResultFields(event: SpanEventRecord) {
  return {
    id: event.attributes[OpenLlmetry.queryResultId],
    score: event.attributes[OpenLlmetry.queryResultScore],
    text: event.attributes[OpenLlmetry.queryResultDocument],
    metadata: event.attributes[OpenLlmetry.queryResultMetadata],
  };
}

/** @param events the span's `db.query.result` events, in order */
export function unreadQueryResultEvents(events: readonly SpanEventRecord[]): MalformedAttribute[] {
  return events.flatMap((event, index) => {
    const fields = queryResultFields(event);
    // Metadata JSON that does not parse is already named (find-malformed-json.ts): not said twice.
    const metadata = parsedJsonValue(event.attributes, OpenLlmetry.queryResultMetadata);
    const phrases = unreadDocumentFields(
      { ...fields, metadata },
      { id: OpenLlmetry.queryResultId, score: OpenLlmetry.queryResultScore, text: OpenLlmetry.queryResultDocument, metadata: OpenLlmetry.queryResultMetadata },
    );
    const read = toObservedDocument(fields);
    if (read.chunkId === null && read.text === null) {
      phrases.push(`it has neither an id nor a document (its attributes: ${describeValue(event.attributes)}), so the hit's chunk id and text are not available`);
    }
    return phrases.length === 0 ? [] : [{ attribute: OpenLlmetry.queryResultEvent, error: `event [${index}]: ${phrases.join("; ")}; ${UNREAD_PARTS_CONSEQUENCE}` }];
  });
}
