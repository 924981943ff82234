/**
 * The OTLP trace codec: decode, encode, split by trace, flatten to SpanRecords.
 */
export { countSpans } from "./count-spans.js";
export { decodeTraceRequest } from "./decode-trace-request.js";
export { encodeTraceRequestJson } from "./encode-json.js";
export { encodeTraceRequest } from "./encode-protobuf.js";
export { decodeRpcStatus, encodeExportSuccess, encodeRpcStatus, RpcCode, type RpcCodeNumber } from "./otlp-export-response.js";
export type { OtlpDecodeError } from "./otlp-decode-error.js";
export { detectEncoding, type OtlpEncoding } from "./otlp-encoding.js";
export type * from "./span-record.js";
export { splitByTraceId } from "./split-by-trace-id.js";
export { toAttributes, toAttributeValue, toSpanRecords } from "./to-span-records.js";
export type * from "./traces-document.js";
