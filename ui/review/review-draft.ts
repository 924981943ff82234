/**
 * A review posted after its session ended (signed out in another tab, the
 * token removed), kept until the reviewer has signed in again and is back on
 * the case's review page, so that what they chose is not lost.
 *
 * It rides in the reviewer's own browser, never on the server: a cookie
 * (HttpOnly, SameSite=Strict, Path=/review, 30 minutes) set on the sign-in
 * page that answers the post, read and deleted by the case's review page,
 * which fills the form in again to be checked and saved — nothing is saved by
 * it. It holds only what the review form holds (a verdict per metric, the
 * root cause, the comment) and the case result id, never a token. Bounded:
 * the form's fields, compressed, must fit in MAXIMUM_DRAFT_CHARACTERS (a
 * browser keeps at most 4096 bytes a cookie); a comment that does not fit is
 * left out and the sign-in page shows it to copy instead.
 *
 * Signed (HMAC-SHA256, hono's signed cookies) with a key the UI process draws
 * at start: another site, or another server on this host (cookies do not
 * separate ports), can set a cookie for this host but not one that verifies,
 * so it cannot fill a reviewer's form with words of its choosing. A draft
 * therefore does not outlive a restart of `ragscope serve`.
 */
import { deflateRawSync, inflateRawSync } from "node:zlib";
import type { Context } from "hono";
import { deleteCookie, getCookie, getSignedCookie, setSignedCookie } from "hono/cookie";
import { ROOT_CAUSE_LABEL_NAMES } from "../../evaluators/root-cause/root-cause-labels.js";
import type { ReviewFormValues } from "../pages/review-page.js";
import { cutText } from "../../core/cut-text.js";

const DRAFT_COOKIE = "ragscope_review_draft";
const DRAFT_PATH = "/review";
/** Long enough to fetch a token from whoever hands them out; the draft is gone by the next day's work. */
const DRAFT_SECONDS = 30 * 60;
/** The compressed, base64url-encoded draft; with the cookie's name and signature it stays under a browser's 4096 bytes. */
export const MAXIMUM_DRAFT_CHARACTERS = 3500;
/** What a draft may inflate to: a comment of 4000 characters is at most 16 KB of UTF-8. */
const MAXIMUM_INFLATED_BYTES = 64 * 1024;
/** The review route keeps a comment to this many characters; the draft keeps the same. */
export const MAXIMUM_COMMENT_CHARACTERS = 4000;
const MAXIMUM_METRICS = 200;
const MAXIMUM_METRIC_CHARACTERS = 256;

export interface ReviewDraft {
  caseResultId: string;
  values: ReviewFormValues;
}

/** What the sign-in page can say became of a review posted without a session. */
export type KeptReview = { kept: "whole" } | { kept: "without-comment"; comment: string } | { kept: "nothing" };

/** The review form's fields as the review route reads them (`metric:<name>` = pass | fail, root_cause, comment). */
export function reviewDraftOfForm(caseResultId: string, form: Record<string, unknown>): ReviewDraft {
  // Without a prototype: a metric named "__proto__" is a key like any other (refused below as no judged metric), not a
  // write to the prototype that dropped the verdict and saved the rest of the review as if it held none.
  const verdicts = Object.create(null) as Record<string, "pass" | "fail">;
  for (const [key, value] of Object.entries(form)) {
    if (!key.startsWith("metric:") || (value !== "pass" && value !== "fail")) continue;
    const metric = key.slice("metric:".length);
    if (metric.length === 0 || metric.length > MAXIMUM_METRIC_CHARACTERS || Object.keys(verdicts).length >= MAXIMUM_METRICS) continue;
    verdicts[metric] = value;
  }
  const rootCause = typeof form.root_cause === "string" && (ROOT_CAUSE_LABEL_NAMES as readonly string[]).includes(form.root_cause) ? form.root_cause : null;
  const comment = typeof form.comment === "string" ? cutText(form.comment.replace(/\r\n/g, "\n"), MAXIMUM_COMMENT_CHARACTERS) : "";
  return { caseResultId, values: { verdicts, rootCause, comment } };
}

/** The draft as the cookie holds it; null when it does not fit. */
export function encodeReviewDraft(draft: ReviewDraft): string | null {
  const text = JSON.stringify({ caseResultId: draft.caseResultId, verdicts: draft.values.verdicts, rootCause: draft.values.rootCause, comment: draft.values.comment });
  const encoded = deflateRawSync(Buffer.from(text, "utf8")).toString("base64url");
  return encoded.length <= MAXIMUM_DRAFT_CHARACTERS ? encoded : null;
}

/** A draft read back; null for anything that is not one (it was signed by this process, but is read as untrusted all the same). */
export function decodeReviewDraft(encoded: string): ReviewDraft | null {
  if (encoded.length > MAXIMUM_DRAFT_CHARACTERS || !/^[A-Za-z0-9_-]*$/.test(encoded)) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(inflateRawSync(Buffer.from(encoded, "base64url"), { maxOutputLength: MAXIMUM_INFLATED_BYTES }).toString("utf8"));
  } catch {
    return null;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return null;
  const { caseResultId, verdicts, rootCause, comment } = parsed as Record<string, unknown>;
  if (typeof caseResultId !== "string" || typeof comment !== "string" || (rootCause !== null && typeof rootCause !== "string")) return null;
  if (typeof verdicts !== "object" || verdicts === null || Array.isArray(verdicts)) return null;
  const form: Record<string, unknown> = { root_cause: rootCause ?? "", comment };
  for (const [metric, verdict] of Object.entries(verdicts)) form[`metric:${metric}`] = verdict;
  return reviewDraftOfForm(caseResultId, form);
}

/**
 * Sets the draft's cookie on the answer: the whole review when it fits, else
 * without its comment (which the caller then shows to copy), else nothing.
 */
export async function keepReviewDraft(context: Context, secret: string, draft: ReviewDraft, secure: boolean): Promise<KeptReview> {
  const whole = encodeReviewDraft(draft);
  const withoutComment = whole === null ? encodeReviewDraft({ caseResultId: draft.caseResultId, values: { ...draft.values, comment: "" } }) : null;
  const encoded = whole ?? withoutComment;
  if (encoded === null) return { kept: "nothing" };
  await setSignedCookie(context, DRAFT_COOKIE, encoded, secret, { httpOnly: true, sameSite: "Strict", path: DRAFT_PATH, maxAge: DRAFT_SECONDS, secure });
  return whole !== null ? { kept: "whole" } : { kept: "without-comment", comment: draft.values.comment };
}

/**
 * The draft waiting for this case's review page, deleted as it is read; null
 * when there is none or it is another case's (which waits for that page). A
 * cookie that does not verify or is not a draft is deleted.
 */
export async function takeReviewDraft(context: Context, secret: string, caseResultId: string, secure: boolean): Promise<ReviewFormValues | null> {
  if (getCookie(context, DRAFT_COOKIE) === undefined) return null;
  // false for a signature that does not verify, undefined for a value that is not signed at all.
  const signed = await getSignedCookie(context, secret, DRAFT_COOKIE);
  const draft = typeof signed === "string" ? decodeReviewDraft(signed) : null;
  if (draft !== null && draft.caseResultId !== caseResultId) return null;
  deleteCookie(context, DRAFT_COOKIE, { path: DRAFT_PATH, secure, httpOnly: true, sameSite: "Strict" });
  return draft?.values ?? null;
}
