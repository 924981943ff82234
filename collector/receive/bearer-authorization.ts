/**
 * Bearer-token check for the receiver (RFC 6750 `Authorization: Bearer <token>`).
 *
 * Tokens are compared through their SHA-256 digests with a constant-time
 * comparison, so neither the length nor the content of a configured token leaks
 * through response timing.
 */
import { createHash, timingSafeEqual } from "node:crypto";

export interface BearerAuthorization {
  /** True when the header carries one of the configured tokens. */
  allows(authorizationHeader: string | undefined): boolean;
}

export function createBearerAuthorization(tokens: readonly string[]): BearerAuthorization {
  const digests = tokens.map(digest);
  return {
    allows(authorizationHeader) {
      const match = /^\s*bearer\s+(\S+)\s*$/i.exec(authorizationHeader ?? "");
      if (match === null) return false;
      const presented = digest(match[1]!);
      let allowed = false;
      // Every digest is compared, so the answer takes as long whichever matches.
      for (const candidate of digests) allowed = timingSafeEqual(candidate, presented) || allowed;
      return allowed;
    },
  };
}

function digest(token: string): Buffer {
  return createHash("sha256").update(token, "utf8").digest();
}
