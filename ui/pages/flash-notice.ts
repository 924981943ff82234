/**
 * A notice shown once after a form's redirect ("Imported 3 labels.",
 * "Saved."). It used to ride in the address (`/review?imported=3`), so every
 * reload of the page, and every bookmark of it, said it again. It now rides in
 * a short-lived cookie that the page it is meant for reads and deletes.
 *
 * The cookie holds only a kind and a number or case id, never text to show:
 * the page writes its own words, so a cookie set by anyone else can at most
 * make a page say "Saved." wrongly, never say something of its choosing.
 */
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";

/** `commentCut`: the review's comment was longer than the form keeps, and was saved cut (the page says so). */
/** `unchanged`: lines of the imported file that a later label with the same id outlasts (bind-imported-labels.ts). */
export type FlashNotice = { kind: "imported"; labels: number; unchanged: number } | { kind: "saved"; caseResultId: string; commentCut: boolean } | { kind: "signed-out" };

const NOTICE_COOKIE = "ragscope_notice";
/** Long enough for the redirect that follows the form; a notice nobody collected is gone by the next visit. */
const NOTICE_SECONDS = 60;
const IMPORTED = /^imported:(\d{1,9})(?::(\d{1,9}))?$/;
const SAVED = /^saved(-cut)?:(.{1,512})$/s;
const SIGNED_OUT = "signed-out";

/** `secure`: as the session cookie (access/session-cookie.ts). */
export function setFlashNotice(context: Context, notice: FlashNotice, secure: boolean): void {
  const value = notice.kind === "imported" ? `imported:${notice.labels}${notice.unchanged === 0 ? "" : `:${notice.unchanged}`}` : notice.kind === "saved" ? `saved${notice.commentCut ? "-cut" : ""}:${notice.caseResultId}` : SIGNED_OUT;
  setCookie(context, NOTICE_COOKIE, value, { httpOnly: true, sameSite: "Strict", path: "/", maxAge: NOTICE_SECONDS, secure });
}

/** The notice waiting for this page, deleted as it is read; null when there is none, or it belongs to another page. */
export function takeFlashNotice(context: Context, wanted: (notice: FlashNotice) => boolean, secure: boolean): FlashNotice | null {
  const value = getCookie(context, NOTICE_COOKIE);
  if (value === undefined) return null;
  const imported = IMPORTED.exec(value);
  const saved = SAVED.exec(value);
  const notice: FlashNotice | null = imported !== null ? { kind: "imported", labels: Number(imported[1]), unchanged: Number(imported[2] ?? 0) } : saved !== null ? { kind: "saved", caseResultId: saved[2]!, commentCut: saved[1] !== undefined } : value === SIGNED_OUT ? { kind: "signed-out" } : null;
  // A notice of another page waits for it; one that is not a notice at all is dropped.
  if (notice !== null && !wanted(notice)) return null;
  deleteCookie(context, NOTICE_COOKIE, { path: "/", secure, httpOnly: true, sameSite: "Strict" });
  return notice;
}
