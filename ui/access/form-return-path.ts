/**
 * Where signing in returns to after a form was posted without a session (it
 * ended in another tab, or its token was removed): the page the form was on.
 * The browser names it in `Referer` (the UI's `Referrer-Policy: same-origin`
 * sends it with the UI's own posts only), but any client can send any
 * `Referer`, so it counts only when it names this UI's own origin, and even
 * then only as a path of this server (access/local-path.ts); otherwise the
 * form's own page, which the route names, is used. Never an address of
 * another site: the sign-in page must not become an open redirect.
 */
import { localPath } from "./local-path.js";

/** Pages whose return would only show the sign-in page again. */
const SIGN_IN_PAGES = new Set(["/login", "/logout"]);

/**
 * @param referer the post's Referer header, if any
 * @param ownOrigin this UI's origin as browsers name it (access/session-cookie.ts browserOrigin)
 * @param formPage the page that shows the form posted (e.g. /review/<id> for its review form)
 */
export function formReturnPath(referer: string | undefined, ownOrigin: string, formPage: string): string {
  const fallback = localPath(formPage);
  if (referer === undefined) return fallback;
  let parsed: URL;
  try {
    parsed = new URL(referer);
  } catch {
    return fallback;
  }
  if (parsed.origin !== ownOrigin) return fallback;
  const path = localPath(`${parsed.pathname}${parsed.search}`);
  return SIGN_IN_PAGES.has(new URL(path, ownOrigin).pathname) ? fallback : path;
}
