/**
 * Which OTLP encoding and which compression a request declares
 * (shared/reference/interop.md §5): Content-Type `application/x-protobuf` or
 * `application/json`, parameters such as `charset` allowed; Content-Encoding
 * `gzip` or none.
 */
import type { OtlpEncoding } from "../00-otlp/otlp-encoding.js";

export type ContentEncoding = "identity" | "gzip";

/** The OTLP encoding of a Content-Type header, or null when it is not one of OTLP's. */
export function encodingOfContentType(header: string | undefined): OtlpEncoding | null {
  if (header === undefined) return null;
  const mediaType = header.split(";", 1)[0]!.trim().toLowerCase();
  if (mediaType === "application/x-protobuf") return "protobuf";
  if (mediaType === "application/json") return "json";
  return null;
}

/** The compression of a Content-Encoding header, or null when it is not supported. */
export function parseContentEncoding(header: string | undefined): ContentEncoding | null {
  const value = (header ?? "").trim().toLowerCase();
  if (value === "" || value === "identity") return "identity";
  if (value === "gzip" || value === "x-gzip") return "gzip";
  return null;
}

export const contentTypeOf: Record<OtlpEncoding, string> = {
  protobuf: "application/x-protobuf",
  json: "application/json",
};
