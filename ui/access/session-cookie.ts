/**
 * The session cookie the `?token=` exchange sets (HttpOnly, SameSite=Strict),
 * and when it is `Secure`: when the request reached the UI over TLS itself,
 * or when the operator says the UI is served behind TLS
 * (RAGSCOPE_UI_BEHIND_TLS=true: a reverse proxy that terminates HTTPS and
 * talks plain HTTP to `ragscope serve`). A browser then never sends the token
 * over plain HTTP, e.g. to an http:// link to the same name.
 *
 * X-Forwarded-Proto is never read: any client can send it, and nothing tells
 * the UI which proxy is trusted; the setting is the operator's word instead.
 */
import { BOOLEAN_WORDS, parseBooleanWord } from "../../core/boolean-words.js";
import { failure, success, type Result } from "../../core/result.js";

export const SESSION_COOKIE = "ragscope_token";
export const UI_BEHIND_TLS_VARIABLE = "RAGSCOPE_UI_BEHIND_TLS";

/** RAGSCOPE_UI_BEHIND_TLS: `true` or `false`; unset or empty is false. */
export function parseBehindTls(text: string | undefined): Result<boolean, string> {
  if ((text ?? "").trim() === "") return success(false);
  const value = parseBooleanWord(text ?? "");
  if (value !== null) return success(value);
  return failure(`${UI_BEHIND_TLS_VARIABLE}: must be ${BOOLEAN_WORDS}, not ${JSON.stringify(text)}; set it to true when a proxy serves the UI over HTTPS (the session cookie is then Secure)`);
}

/** The cookie's attributes for a request that arrived with `protocol` (the request URL's, e.g. "https:"). */
export function sessionCookieOptions(protocol: string, behindTls: boolean): { httpOnly: true; sameSite: "Strict"; path: "/"; secure: boolean } {
  return { httpOnly: true, sameSite: "Strict", path: "/", secure: behindTls || protocol === "https:" };
}

/**
 * The origin a browser names for this UI: behind a TLS proxy its pages are
 * https:// under the same host, while the request reaching the UI is http://.
 */
export function browserOrigin(url: URL, behindTls: boolean): string {
  return behindTls ? `https://${url.host}` : url.origin;
}
