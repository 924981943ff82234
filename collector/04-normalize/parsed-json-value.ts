/**
 * An attribute's value as the readers see it, for explaining what they could
 * not read: JSON text parsed, a structured OTLP value (array, key-value list)
 * as it is. `undefined` when the attribute is absent, null, or JSON text that
 * does not parse: find-malformed-json.ts already lists that one, and a second
 * note for it would say the same thing twice.
 */
import type { Attributes } from "../00-otlp/span-record.js";

export function parsedJsonValue(attributes: Attributes, key: string): unknown {
  const value = attributes[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return undefined;
  }
}
