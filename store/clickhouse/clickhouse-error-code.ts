/**
 * The error code a ClickHouse failure carries, as text: the server's numeric
 * code ("60" for an unknown table) from @clickhouse/client over HTTP and from
 * the embedded engine's connection alike (both parse `Code: N. DB::Exception`),
 * or a connection's own code ("CHDB_CONNECTION"). Null for anything else (a
 * network error without a code, a bug). Codes are compared as text because
 * the client gives them as strings and older paths as numbers.
 */
export function clickHouseErrorCode(error: unknown): string | null {
  if (typeof error !== "object" || error === null || !("code" in error)) return null;
  const code = (error as { code: unknown }).code;
  return typeof code === "string" || typeof code === "number" ? String(code) : null;
}
