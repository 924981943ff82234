/**
 * Decodes an OTLP trace request body (ExportTraceServiceRequest, or the
 * wire-identical TracesData a Kafka message holds) in either encoding.
 */
import type { Result } from "../../core/result.js";
import { decodeJsonTraceRequest } from "./decode-json.js";
import { decodeProtobufTraceRequest } from "./decode-protobuf.js";
import type { OtlpDecodeError } from "./otlp-decode-error.js";
import type { OtlpEncoding } from "./otlp-encoding.js";
import type { TracesDocument } from "./traces-document.js";

export function decodeTraceRequest(body: Uint8Array, encoding: OtlpEncoding): Result<TracesDocument, OtlpDecodeError> {
  return encoding === "json" ? decodeJsonTraceRequest(body) : decodeProtobufTraceRequest(body);
}
