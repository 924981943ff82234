/**
 * Strings an attacker sends where an identifier is expected: SQL quote and
 * backslash break-outs for ClickHouse string literals, `\N` (TSV null), NUL,
 * newlines, `$$` (Grafana's replace patterns), comments, Unicode separators,
 * Grafana macro syntax, and an oversized value.
 */
export const HOSTILE_STRINGS = [
  "x' OR 1=1 --",
  "x\\' OR 1=1 --",
  "\\' OR 1=1 --",
  "\\N",
  "a\u0000b",
  "line\nbreak",
  "$$dollar$$",
  "$' OR 1=1 --",
  "/* comment */",
  "-- tail",
  "sep\u2028arator",
  "${__from}",
  "x".repeat(129),
];
