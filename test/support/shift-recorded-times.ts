/**
 * Recorded OTLP/JSON bodies (traces or logs) moved in time, so that a recording made on another day is inside the
 * window of span times the receiver takes and the store keeps: every `…TimeUnixNano` moved by one shift, the spans'
 * and the log records' alike, so their order and distances stay as recorded.
 */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** The document with every time (a `…TimeUnixNano` field that is set) moved by `shiftNanos`. */
export function shifted(document: Json, shiftNanos: bigint): Json {
  if (Array.isArray(document)) return document.map((item) => shifted(item, shiftNanos));
  if (document === null || typeof document !== "object") return document;
  return Object.fromEntries(
    Object.entries(document).map(([key, value]) => [key, /TimeUnixNano$/.test(key) && typeof value === "string" && value !== "0" ? (BigInt(value) + shiftNanos).toString() : shifted(value, shiftNanos)]),
  );
}

/** The shift that puts the earliest span start of `traces` at `startMs` (Unix milliseconds). */
export function shiftToStartAt(traces: Json, startMs: number): bigint {
  let earliest: bigint | null = null;
  const visit = (value: Json): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (value !== null && typeof value === "object")
      for (const [key, item] of Object.entries(value)) {
        if (key === "startTimeUnixNano" && typeof item === "string" && (earliest === null || BigInt(item) < earliest)) earliest = BigInt(item);
        else visit(item);
      }
  };
  visit(traces);
  return BigInt(startMs) * 1_000_000n - (earliest ?? 0n);
}
