/**
 * The reviewer token a request presents: the `Authorization` header's bearer
 * token when the header uses that scheme, else the session cookie (what the
 * `?token=` exchange set). The scheme is matched without regard to case —
 * RFC 9110 §11.1 makes authentication schemes case-insensitive, so
 * `bearer <token>` is the same credential as `Bearer <token>` (RFC 6750 §2.1)
 * — as the receiver does (collector/01-receive/bearer-authorization.ts).
 */

const BEARER = /^\s*bearer\s+(\S+)\s*$/i;

/** The token of an `Authorization: Bearer <token>` header; null for another scheme, a malformed value or no header. */
export function bearerTokenOf(header: string | undefined): string | null {
  return BEARER.exec(header ?? "")?.[1] ?? null;
}

/**
 * What the request presents: a bearer header wins over the cookie. A header of
 * another scheme (Basic, from a proxy in front) is not a reviewer token, so the
 * cookie still counts.
 */
export function presentedToken(authorizationHeader: string | undefined, cookie: string | undefined): string | null {
  return bearerTokenOf(authorizationHeader) ?? cookie ?? null;
}
