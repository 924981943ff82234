/** The JSON array a trace's raw spans are stored as, in one buffer (the sink writes it into the insert body without this copy). */
import type { RawSpans } from "../../contracts/raw-spans.js";

export function rawSpansJson(raw: RawSpans): Buffer {
  const parts: Uint8Array[] = [];
  raw.spans.forEach((span, index) => parts.push(Buffer.from(index === 0 ? "[" : ","), span));
  parts.push(Buffer.from(raw.spans.length === 0 ? "[]" : "]"));
  return Buffer.concat(parts);
}
