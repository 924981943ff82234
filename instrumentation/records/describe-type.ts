/** Names the type of an unchecked value for problem messages ("got null"). */
export function describeType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value;
}
