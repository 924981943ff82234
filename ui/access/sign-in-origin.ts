/**
 * Whether a sign-in form post came from a page of this UI. A session set by
 * another site's request is login CSRF: a page (or a link) that signs the
 * victim in with the attacker's token makes the victim's later reviews,
 * labels and imports the attacker's, in the attacker's tenant. So the sign-in
 * post must show that it came from this origin, by one of the two headers
 * browsers set and pages cannot forge:
 *
 * - `Sec-Fetch-Site` (Fetch Metadata): when present it must be `same-origin`;
 * - `Origin`: when present it must be this UI's origin (`https://` behind a TLS
 *   proxy, access/session-cookie.ts).
 *
 * A post with neither header is refused too: every browser that can run the
 * form sends at least `Origin` with a POST, and a client without a browser
 * has no use for a session (it sends `Authorization: Bearer`).
 *
 * The sign-out form is held to the same rule: another site must not end a
 * reviewer's session either (a page that signs them out, then offers its own
 * "sign in again" link, is the first half of the same attack).
 */
import { failure, success, type Result } from "../../core/result.js";

export interface SignInHeaders {
  origin: string | undefined;
  fetchSite: string | undefined;
}

/** Which form was posted: the refusal names it and says how to do it instead. */
export type SessionForm = "sign-in" | "sign-out";

export function checkSignInOrigin(headers: SignInHeaders, ownOrigin: string, form: SessionForm = "sign-in"): Result<void, string> {
  const how =
    form === "sign-in"
      ? `sign in from this UI's own form (${ownOrigin}/login), or send the token as Authorization: Bearer <token> instead of a session`
      : `sign out with the "Sign out" button in the header of this UI's pages (${ownOrigin})`;
  if (headers.fetchSite !== undefined && headers.fetchSite !== "same-origin") return failure(`ragscope UI: ${form} refused: the browser says the form was sent from another site (Sec-Fetch-Site: ${headers.fetchSite}), which must never choose your session; ${how}`);
  if (headers.origin !== undefined && headers.origin !== ownOrigin) return failure(`ragscope UI: ${form} refused: the form came from ${JSON.stringify(headers.origin)}, not from this UI (${ownOrigin}); ${how}`);
  if (headers.origin === undefined && headers.fetchSite === undefined) return failure(`ragscope UI: ${form} refused: the request names no Origin (nor Sec-Fetch-Site), so nothing shows it came from this UI; ${how}`);
  return success(undefined);
}
