/**
 * Bearer-token check for the receiver (RFC 6750 `Authorization: Bearer <token>`),
 * and the tenant a token stands for (SECURITY.md "Tenants").
 *
 * Two kinds of token, both kept as SHA-256 digests in memory:
 * - `receiver.authTokens` (RAGSCOPE_AUTH_TOKENS): plain tokens of a
 *   single-tenant deployment; they authenticate no tenant;
 * - `receiver.tenantTokens` (RAGSCOPE_TENANT_TOKENS `tenant=sha256,…`): the
 *   SHA-256 of each tenant's token, hex — the token itself is never stored.
 *
 * Digests are compared in constant time, every candidate each time, so neither
 * a token's length nor which one matched leaks through response timing.
 */
import { createHash, timingSafeEqual } from "node:crypto";

export interface Credential {
  /** The tenant the token belongs to; null for a single-tenant token. */
  tenant: string | null;
}

export interface BearerAuthorization {
  /** The credential the header carries, or null when it carries no configured token. */
  authenticate(authorizationHeader: string | undefined): Credential | null;
}

export interface BearerTokens {
  tokens?: readonly string[];
  /** Tenant → SHA-256 of its token, 64 hex digits. */
  tenantTokens?: Readonly<Record<string, string>>;
}

export function createBearerAuthorization(configured: BearerTokens): BearerAuthorization {
  const candidates: { digest: Buffer; tenant: string | null }[] = [
    ...(configured.tokens ?? []).map((token) => ({ digest: digest(token), tenant: null })),
    ...Object.entries(configured.tenantTokens ?? {}).map(([tenant, sha256]) => ({ digest: Buffer.from(sha256, "hex"), tenant })),
  ];
  return {
    authenticate(authorizationHeader) {
      const match = /^\s*bearer\s+(\S+)\s*$/i.exec(authorizationHeader ?? "");
      if (match === null) return null;
      const presented = digest(match[1]!);
      let found: Credential | null = null;
      for (const candidate of candidates) {
        if (timingSafeEqual(candidate.digest, presented) && found === null) found = { tenant: candidate.tenant };
      }
      return found;
    },
  };
}

/** The SHA-256 of a token, as RAGSCOPE_TENANT_TOKENS holds it. */
export function tokenDigestHex(token: string): string {
  return digest(token).toString("hex");
}

function digest(token: string): Buffer {
  return createHash("sha256").update(token, "utf8").digest();
}
