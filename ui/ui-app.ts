/**
 * The UI and its read API as one Hono app: HTML pages, the same data as JSON
 * under /api, label import/export. Every request is checked against the
 * reviewer tokens (ui-access.ts). A browser signs in on /login: a token in
 * the address (?token=) only fills in that page, and the session (an
 * HttpOnly, SameSite=Strict cookie) is set by its form's post from this
 * origin alone, never by a GET another site can make (login CSRF:
 * access/sign-in-origin.ts); a page opened without a session shows that
 * sign-in page, so does a form posted after the session ended (saying it was
 * not saved, a review kept to fill in again: review/review-draft.ts), and the
 * header's "Sign out" posts /logout, from this origin too. State changing
 * requests must come from this origin. Without tokens (loopback
 * only) a request must name a loopback host, so a page on another site that
 * re-points its own name at 127.0.0.1 (DNS rebinding) reads and writes
 * nothing. Request bodies are bounded per route before they are read, and
 * every answer carries the security headers (SECURITY.md, threat model and
 * limits; ui/README.md, Access).
 *
 * Each request reads through the store's ports for its token's tenants
 * (`readers`, store/ports/tenant-scope.ts): the store applies the scope inside
 * every query, so no page or API route can show another tenant's traces,
 * counts, runs or metric values, whatever ids or filters it is given.
 */
import { randomBytes } from "node:crypto";
import { Hono, type Context } from "hono";
import { bodyLimit } from "hono/body-limit";
import { createMiddleware } from "hono/factory";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { failure, success, type Result } from "../core/result.js";
import { compareRuns } from "../experiments/compare/compare-runs.js";
import { labelsOfRequest, type HumanLabel } from "../evaluators/judge/calibration/human-label.js";
import { requestKey } from "../store/ports/human-label-store.js";
import type { Store } from "../store/ports/store.js";
import { OutOfScopeError, type ScopedReaders, type TenantScope } from "../store/ports/tenant-scope.js";
import type { TraceDetail, TraceFilter, TraceLocation, TraceRequest } from "../store/ports/trace-reader.js";
import { attributedRootCauseOf, type AttributedRootCause } from "../dashboards/source/root-causes.js";
import { hasTokens, isLoopbackAuthority, readerFor, type UiAccess } from "./access/ui-access.js";
import { bearerTokenOf, presentedToken } from "./access/presented-token.js";
import { browserOrigin, SESSION_COOKIE, sessionCookieOptions } from "./access/session-cookie.js";
import { localPath } from "./access/local-path.js";
import { checkSignInOrigin } from "./access/sign-in-origin.js";
import { signInPage, type UnsavedForm } from "./pages/sign-in-page.js";
import { formReturnPath } from "./access/form-return-path.js";
import { keepReviewDraft, MAXIMUM_COMMENT_CHARACTERS, reviewDraftOfForm, takeReviewDraft } from "./review/review-draft.js";
import { cutText } from "../core/cut-text.js";
import { setFlashNotice, takeFlashNotice } from "./pages/flash-notice.js";
import { page, type Viewer } from "./pages/layout.js";
import { boardRefusedPage } from "./pages/board-filters.js";
import { moreReviewsHref, reviewItemPage, reviewQueuePage, type QueueItem } from "./pages/review-page.js";
import { runComparePage, runsPage } from "./pages/runs-page.js";
import { tracePage } from "./pages/trace-page.js";
import { asTraceId, MOST_REQUESTS_OF_A_TRACE_ID, requestedTrace, reviewAddress, traceAddress, traceIdNotStored, traceIdOfSeveralRequests, traceNotStored } from "./pages/trace-address.js";
import { encodeCursor, parseTraceQuery } from "./pages/trace-query.js";
import { LIST_END_HEADER, olderTracesHref, traceRows, tracesPage, type ListedTrace } from "./pages/traces-page.js";
import { judgeAgreement, reviewerAgreement } from "./review/review-agreement.js";
import { labelsFromJsonl, labelsToJsonl, type LabelAuthor } from "./review/labels-jsonl.js";
import { checkImportedPasses } from "./review/imported-passes.js";
import { bindImportedLabels, movedOffByImport, OUTLASTED_LINES, outlastedOnImport } from "./review/bind-imported-labels.js";
import { finalVerdictOfListed, labelsVisibleTo, humanVerdictOf, labelsOfSubmission, reviewMetrics, visibleLabels } from "./review/review-labels.js";
import { finalVerdictOfReview, reviewerVerdictsOf } from "../evaluators/reviewed-verdict.js";
import { staticAssets } from "./static/static-assets.js";
import { runComparisonJson } from "./api/run-comparison-json.js";
import { recordRunLineage } from "./api/record-run-lineage.js";
import { compareEvalCases, MAXIMUM_COMPARED_CASES } from "./api/compare-eval-cases.js";
import { shownTraceDetail } from "./api/blind-trace-detail.js";
import { parseBoardQuery } from "./pages/board-query.js";
import { queryText, repeatedQueryParameter } from "./routing/query-parameters.js";
import { qualityPage } from "./pages/quality-page.js";
import { readBehaviourBoard } from "../evaluators/behaviour/behaviour-board.js";
import { failuresPage } from "./pages/failures-page.js";
import { experimentReportPage, experimentsPage } from "./pages/experiments-page.js";
import { describeNoExperiment, parseExperimentReportSettings, readExperimentReport, type ExperimentReportSettingsText } from "../evaluators/experiments/read-experiment-report.js";
import { html } from "./pages/markup.js";
import { allowedMethods } from "./routing/allowed-methods.js";
import { refusedMediaType } from "./routing/request-media-type.js";
import { DEFAULT_TRACE_EVENTS, TraceEventsByScope } from "./live/trace-events.js";

/** A store that can hand out its read ports for one tenant scope (the ClickHouse adapter). */
export type ScopableStore = Store & { scoped?(scope: TenantScope): ScopedReaders };

/**
 * The read ports for one scope. A store that cannot restrict its reads (the
 * in-memory store of tests) serves only readers of every tenant; a
 * tenant-limited token on it is refused (null), never answered unrestricted.
 */
export function readersFor(store: ScopableStore, scope: TenantScope): ScopedReaders | null {
  if (store.scoped !== undefined) return store.scoped(scope);
  if (scope !== "all") return null;
  return { scope, reader: store.reader, traces: store.traces, humanLabels: store.humanLabels, quality: store.quality, experiments: store.experiments };
}

export interface UiAppOptions {
  store: ScopableStore;
  access: UiAccess;
  /** Clock for label times, injectable for tests. */
  now?: () => number;
  /** The live list's server-sent events; the UI server owns them (and closes them on shutdown). */
  traceEvents?: TraceEventsByScope;
  /** A proxy serves the UI over HTTPS (RAGSCOPE_UI_BEHIND_TLS): the session cookie is Secure and browsers' origin is https (access/session-cookie.ts). */
  behindTls?: boolean;
  /** Where an unexpected error's cause goes; stderr by default. */
  logError?: (line: string) => void;
}

type Variables = { reviewer: string; authenticated: boolean; readers: ScopedReaders; viewer: Viewer };
const MAXIMUM_RUNS = 500;
const MEBIBYTE = 1024 * 1024;
const MAXIMUM_IMPORT_BYTES = 20 * MEBIBYTE;
/** The import form's multipart framing around the file: boundaries and part headers. */
const IMPORT_FORM_FRAMING_BYTES = 64 * 1024;
/** A review holds verdicts, a root cause and a comment cut to 4000 characters: a few KiB; a mebibyte leaves room for any real one. */
const MAXIMUM_REVIEW_BYTES = MEBIBYTE;
/** The sign-in form holds a token and a path to return to: a few hundred bytes. */
const MAXIMUM_SIGN_IN_BYTES = 16 * 1024;
/** Paths a browser without a session may reach when tokens are set: the sign-in page, its script, signing out (which needs no session to end), and the icon every page asks for. */
const SIGN_IN_PATHS = new Set(["/login", "/logout", "/static/sign-in.js", "/favicon.ico"]);
/** RFC 6750: a 401 names the scheme it wants; browsers ask for no password on a Bearer challenge, so the sign-in page carries it too. */
const BEARER_CHALLENGE = { "WWW-Authenticate": 'Bearer realm="ragscope"' };
/**
 * A form posted without a session is read (to keep a review for after signing in) only up to this: a review with a
 * 4000-character comment is under 40 KiB even percent-encoded. Nobody signed in sent it, so a larger one is not read.
 */
const MAXIMUM_FORM_WITHOUT_SESSION_BYTES = 64 * 1024;
const COMMENT_CUT = `Saved. Your comment was longer than ${MAXIMUM_COMMENT_CHARACTERS.toLocaleString("en")} characters, the most a review keeps: it was cut there and the rest was not saved — check its end below.`;
const RESTORED_REVIEW = "Your review was not saved when your session ended: it is filled in again below. Check it and press Save labels.";
const STALE_SESSION = "this browser's session is no longer valid (its token was changed or removed from this UI): sign in again with your current token";
const INVALID_ADDRESS_TOKEN = "the token in the address is not a reviewer token of this UI: check it with whoever gave it to you, or paste another below";
/** What each write endpoint reads its body as (ui/README.md, "Pages and API"); any other Content-Type is 415. */
const JSON_BODY = ["application/json"];
/** JSON Lines goes by both names; the export answers the first. */
const JSON_LINES_BODY = ["application/x-ndjson", "application/jsonl"];
/** The import form sends its file as a multipart part. */
const FILE_FORM_BODY = ["multipart/form-data"];
/** A review is the browser's form (urlencoded; multipart read alike) or, from a client, a JSON object. */
const REVIEW_BODY = ["application/x-www-form-urlencoded", "multipart/form-data", "application/json"];
/**
 * Signing in and out are the sign-in page's and the header's forms, posted urlencoded (the header's "Sign out" form
 * has no field: browsers still send its empty body as application/x-www-form-urlencoded). No client needs them: a
 * script sends its token in Authorization.
 */
const SIGN_IN_BODY = ["application/x-www-form-urlencoded"];
/** A run's lineage is a dozen short versions and a note: 64 KiB leaves room for any real one. */
const MAXIMUM_LINEAGE_BYTES = 64 * 1024;
/** 200 cases' field digests (ui/api/compare-eval-cases.ts) are well under a mebibyte unless a case's mappings hold thousands of keys. */
const MAXIMUM_COMPARISON_BYTES = 4 * MEBIBYTE;
const SECURITY_HEADERS = {
  "Content-Security-Policy": "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'",
  "X-Content-Type-Options": "nosniff",
  // Links out of a trace page must not carry its address (case result ids, filters) to another site. Not
  // "no-referrer": under it a browser sends `Origin: null` with the UI's own form posts, which the origin check refuses.
  "Referrer-Policy": "same-origin",
};

export function createUiApp(options: UiAppOptions): Hono<{ Variables: Variables }> {
  const { store, access } = options;
  const behindTls = options.behindTls ?? false;
  const now = options.now ?? Date.now;
  const traceEvents = options.traceEvents ?? new TraceEventsByScope((scope) => readersFor(store, scope)!.traces, DEFAULT_TRACE_EVENTS);
  const app = new Hono<{ Variables: Variables }>();
  // Signs the reviews kept across a sign-in (review/review-draft.ts): drawn per process, never stored, so only this UI's cookies verify.
  const draftSecret = randomBytes(32).toString("hex");

  // Registered first so it wraps everything after it: the refusals the access check returns early get the headers too.
  app.use("*", async (context, next) => {
    await next();
    const headers = context.res.headers;
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) headers.set(name, value);
    // Pages and API answers hold trace data, which no cache may keep; static assets and the event stream say their own.
    if (!headers.has("Cache-Control")) headers.set("Cache-Control", "no-store");
  });

  app.use("*", async (context, next) => {
    const url = new URL(context.req.url);
    if (!hasTokens(access)) {
      // Everyone who reaches a tokenless UI is trusted, so it must be reached by a loopback name: the Host header
      // (and the address, which an absolute request target sets) of a DNS-rebinding page names the attacker's site.
      const host = context.req.header("host");
      if (!isLoopbackAuthority(host) || !isLoopbackAuthority(url.host)) return refuse(context, `ragscope UI: refused the host ${JSON.stringify(host ?? "")}: without reviewer tokens the UI answers only to localhost, 127.0.0.1 and [::1] (any port), which guards it against DNS rebinding; open it as http://127.0.0.1:<port>/, or set RAGSCOPE_UI_TOKENS to serve it under another name`, 421);
    }
    // The sign-in page answers whoever has no session yet (its routes below); without tokens nobody signs in.
    if (hasTokens(access) && SIGN_IN_PATHS.has(url.pathname)) return next();
    const queryToken = url.searchParams.get("token");
    if (queryToken !== null && hasTokens(access) && (context.req.method === "GET" || context.req.method === "HEAD")) {
      if (url.pathname.startsWith("/api/")) return refuse(context, "ragscope UI: the API does not take a token in the address (addresses are kept in logs and browser history): send it as Authorization: Bearer <token>", 400);
      // Only ever to a path of this server: "//evil.example/x" is a protocol-relative address of another site.
      const next = localPath(`${url.pathname}${url.search}`);
      const cookie = getCookie(context, SESSION_COOKIE);
      // Already signed in with this very token: nothing would change, so there is nothing to confirm.
      if (cookie === queryToken && readerFor(access, cookie) !== null) return context.redirect(next, 303);
      // Any other GET only fills in the sign-in page: a link or an <img> from another site must not choose the session.
      return signInAnswer(context, queryToken, next, cookie, INVALID_ADDRESS_TOKEN);
    }
    const reader = readerFor(access, presentedToken(context.req.header("authorization"), getCookie(context, SESSION_COOKIE)));
    if (reader === null) {
      // A browser opening a page gets the page to sign in on, which returns to the page asked for; the API, scripts
      // and the live list's own fetches (which see only the status) keep the short refusal.
      if (opensPage(context, url)) return signInAnswer(context, null, localPath(`${url.pathname}${url.search}`), getCookie(context, SESSION_COOKIE), INVALID_ADDRESS_TOKEN, BEARER_CHALLENGE);
      // A form a browser posted after its session ended: the sign-in page says it was not saved, and leads back to it.
      if (postsForm(context, url)) return formWithoutSession(context, url);
      return refuse(context, "ragscope UI: a reviewer token is required (Authorization: Bearer <token>, or sign in at /login)", 401, BEARER_CHALLENGE);
    }
    if (context.req.method !== "GET" && context.req.method !== "HEAD") {
      const origin = context.req.header("origin");
      const own = browserOrigin(url, behindTls);
      if (origin !== undefined && origin !== own) return refuse(context, `ragscope UI: cross-origin request refused: the request came from ${JSON.stringify(origin)}, not from this UI (${own})`, 403);
      // A browser that sends no Origin still says where a request came from: a write from another site (or a sibling
      // subdomain, which SameSite counts as the same site) is refused as the sign-in form refuses it. Scripts send neither.
      const fetchSite = context.req.header("sec-fetch-site");
      if (fetchSite !== undefined && fetchSite !== "same-origin" && fetchSite !== "none") return refuse(context, `ragscope UI: cross-origin request refused: the browser says it came from another site (Sec-Fetch-Site: ${JSON.stringify(fetchSite)}), not from this UI's pages (${own})`, 403);
    }
    context.set("reviewer", reader.reviewer);
    context.set("authenticated", reader.authenticated);
    // The header offers to sign out only a session: a client sending Authorization stops by not sending it, and nobody signs in without tokens.
    context.set("viewer", { reviewer: reader.reviewer, signOut: reader.authenticated && bearerTokenOf(context.req.header("authorization")) === null });
    const readers = readersFor(store, reader.tenants);
    if (readers === null) return refuse(context, `ragscope UI: ${store.describe()} cannot restrict reads to a tenant; tenant-limited tokens need the ClickHouse store`, 503);
    context.set("readers", readers);
    await next();
  });

  // Every route reads one value of each parameter (but REPEATABLE_QUERY_PARAMETERS): a second one is refused here,
  // once for all of them, rather than dropped by whichever route reads the first (ui/routing/query-parameters.ts).
  app.use("*", async (context, next) => {
    const repeated = repeatedQueryParameter(new URL(context.req.url).searchParams);
    if (repeated !== null) return badRequest(context, repeated);
    await next();
  });

  /**
   * The sign-in page: asking to confirm `offeredToken` when it is a reviewer's, else asking for a token (401, saying
   * why when one was given). `challenge`: the page stands in for a page that needs a session (401 with it).
   */
  function signInAnswer(context: Context, offeredToken: string | null, next: string, cookie: string | undefined, invalidMessage: string, challenge: Record<string, string> | null = null, notice: string | null = null, unsaved: UnsavedForm | null = null): Response | Promise<Response> {
    const offeredReader = offeredToken === null ? null : readerFor(access, offeredToken);
    const signedInAs = cookie === undefined ? null : (readerFor(access, cookie)?.reviewer ?? null);
    const url = new URL(context.req.url);
    // A token was given: in the address, or in the sign-in form's post (another form's post gave none).
    const given = url.searchParams.has("token") || (context.req.method === "POST" && url.pathname === "/login");
    const offered = offeredToken !== null && offeredReader !== null ? { token: offeredToken, reviewer: offeredReader.reviewer, tenants: offeredReader.tenants } : null;
    // A session cookie that names no reviewer any more (its token was changed or removed) would otherwise read as never signed in.
    const stale = challenge !== null && cookie !== undefined && signedInAs === null ? STALE_SESSION : null;
    const error = offered === null && given ? invalidMessage : stale;
    const shown = signInPage({ offered, next, signedInAs, error, notice, unsaved });
    if (challenge !== null) return context.html(shown, 401, challenge);
    return context.html(shown, offered === null && given ? 401 : 200);
  }

  /**
   * The sign-in page (401) for a form a browser posted without a session: nothing was saved, which it says, and
   * signing in returns to the page the form was on (access/form-return-path.ts). A review posted from this UI's own
   * page is kept in the browser until then (review/review-draft.ts); a form from anywhere else keeps nothing, so
   * another site can neither fill a reviewer's form in nor make this page show its words.
   */
  async function formWithoutSession(context: Context, url: URL): Promise<Response> {
    const own = browserOrigin(url, behindTls);
    // The import form is on the queue; a review form is on its case's page, the address it posts to, which names the
    // request it reviews (`?trace=`: a case sent again has one per request) — kept, and nothing else of the address.
    const trace = url.searchParams.get("trace");
    const formPage = url.pathname === "/review/import" ? "/review" : trace === null ? url.pathname : `${url.pathname}?${new URLSearchParams({ trace })}`;
    const next = formReturnPath(context.req.header("referer"), own, formPage);
    const fromThisUi = checkSignInOrigin({ origin: context.req.header("origin"), fetchSite: context.req.header("sec-fetch-site") }, own).ok;
    const unsaved = await unsavedForm(context, url, fromThisUi);
    return signInAnswer(context, null, next, getCookie(context, SESSION_COOKIE), INVALID_ADDRESS_TOKEN, BEARER_CHALLENGE, null, unsaved);
  }

  /** What the sign-in page says became of the form, keeping a review when it can. */
  async function unsavedForm(context: Context, url: URL, fromThisUi: boolean): Promise<UnsavedForm> {
    const said = (message: string, comment: string | null = null): UnsavedForm => ({ message, comment });
    if (!fromThisUi) return said("Not saved: a form was sent without a session, and not from this UI's own page, so nothing it held is kept. Sign in, then fill it in again.");
    if (url.pathname === "/review/import") return said("Not saved: your session had ended when the label file was sent, so nothing was imported. A file cannot be kept until you sign in: sign in, then import it again.");
    const reviewed = /^\/review\/([^/]+)$/.exec(url.pathname);
    const caseResultId = reviewed === null ? null : decodedPathPart(reviewed[1]!);
    if (caseResultId === null) return said("Not saved: your session had ended when the form was sent. Sign in, then send it again.");
    const length = Number(context.req.header("content-length") ?? Number.NaN);
    if (!Number.isSafeInteger(length) || length > MAXIMUM_FORM_WITHOUT_SESSION_BYTES) return said(`Not saved: your session had ended when the review was sent, and a review larger than ${describeBytes(MAXIMUM_FORM_WITHOUT_SESSION_BYTES)} is not kept until you sign in. Sign in, then fill it in again.`);
    const form = await readForm(context);
    if (!form.ok) return said(`Not saved: your session had ended when the review was sent, and ${form.error.replace(/^the form/, "the review")}. Sign in, then fill it in again.`);
    const draft = reviewDraftOfForm(caseResultId, form.value);
    const kept = await keepReviewDraft(context, draftSecret, draft, secureCookies(context));
    const comment = draft.values.comment === "" ? null : draft.values.comment;
    if (kept.kept === "whole") return said("Not saved: your session had ended when the review was sent. Sign in to go back to it: your verdicts, root cause and comment are filled in again there, to check and save.");
    if (kept.kept === "without-comment") return said("Not saved: your session had ended when the review was sent. Sign in to go back to it: your verdicts and root cause are filled in again there, but your comment is too long to keep until then — copy it from below before signing in.", kept.comment);
    return said("Not saved: your session had ended when the review was sent, and it is too large to keep until you sign in. Copy what you need from below, sign in, then fill it in again.", comment);
  }

  /** Cookies are Secure where the session's is (access/session-cookie.ts). */
  const secureCookies = (context: Context) => sessionCookieOptions(new URL(context.req.url).protocol, behindTls).secure;
  // No viewer on the paths a browser reaches before signing in (GET /logout is a 405): a page for nobody, not a 500.
  const badRequest = (context: Context<{ Variables: Variables }>, message: string, status: 400 | 404 | 405 | 413 | 415 = 400, headers: Record<string, string> = {}) =>
    wantsJson(context) ? context.json({ error: message }, status, headers) : context.html(page("Error", (context.get("viewer") as Viewer | undefined) ?? null, html`<p class="error" id="error">${message}</p>`), status, headers);

  /** Refuses a body whose Content-Type is none of `accepted` (415) before it is read. */
  const takes = (accepted: readonly string[]) =>
    createMiddleware<{ Variables: Variables }>(async (context, next) => {
      const refusal = refusedMediaType(context.req.header("content-type"), accepted, `${context.req.method} ${new URL(context.req.url).pathname}`);
      if (refusal !== null) return badRequest(context, refusal, 415);
      await next();
    });

  app.get("/login", (context) => {
    if (!hasTokens(access)) return context.redirect("/traces", 303);
    // /login?token=… is one more address of the confirmation (its token is never signed in by the GET).
    const offered = context.req.query("token") ?? null;
    const signedOut = takeFlashNotice(context, (waiting) => waiting.kind === "signed-out", secureCookies(context)) !== null;
    return signInAnswer(context, offered, localPath(context.req.query("next") ?? "/traces"), getCookie(context, SESSION_COOKIE), INVALID_ADDRESS_TOKEN, null, signedOut ? "You are signed out." : null);
  });
  app.post(
    "/login",
    takes(SIGN_IN_BODY),
    bodyLimit({ maxSize: MAXIMUM_SIGN_IN_BYTES, onError: (context) => context.text(`ragscope UI: the sign-in form is larger than ${MAXIMUM_SIGN_IN_BYTES} bytes: it holds only a token and a path`, 413) }),
    async (context) => {
      if (!hasTokens(access)) return context.redirect("/traces", 303);
      const url = new URL(context.req.url);
      const origin = checkSignInOrigin({ origin: context.req.header("origin"), fetchSite: context.req.header("sec-fetch-site") }, browserOrigin(url, behindTls));
      if (!origin.ok) return refuse(context, origin.error, 403);
      const form = await readForm(context);
      if (!form.ok) return refuse(context, `ragscope UI: ${form.error}`, 400);
      const token = typeof form.value.token === "string" ? form.value.token.trim() : "";
      const next = localPath(typeof form.value.next === "string" ? form.value.next : "/traces");
      if (readerFor(access, token) === null) return signInAnswer(context, null, next, getCookie(context, SESSION_COOKIE), "that is not a reviewer token of this UI: check it with whoever gave it to you");
      setCookie(context, SESSION_COOKIE, token, sessionCookieOptions(url.protocol, behindTls));
      return context.redirect(next, 303);
    },
  );

  // Ends this browser's session: the cookie is deleted and the sign-in page says so once. Posted from this origin
  // only (access/sign-in-origin.ts); it needs no session, so a stale or missing one is signed out all the same.
  app.post("/logout", takes(SIGN_IN_BODY), (context) => {
    if (!hasTokens(access)) return context.redirect("/traces", 303);
    const url = new URL(context.req.url);
    const origin = checkSignInOrigin({ origin: context.req.header("origin"), fetchSite: context.req.header("sec-fetch-site") }, browserOrigin(url, behindTls), "sign-out");
    if (!origin.ok) return refuse(context, origin.error, 403);
    deleteCookie(context, SESSION_COOKIE, sessionCookieOptions(url.protocol, behindTls));
    setFlashNotice(context, { kind: "signed-out" }, secureCookies(context));
    return context.redirect("/login", 303);
  });

  /**
   * Refuses a body over maximumBytes before it is read: at once when its
   * Content-Length says so, else (chunked) as soon as the bytes read pass it.
   */
  const limitBody = (maximumBytes: number, what: string, fix: string) =>
    bodyLimit({ maxSize: maximumBytes, onError: (context) => badRequest(context as Context<{ Variables: Variables }>, `${what} is larger than ${describeBytes(maximumBytes)} (${maximumBytes} bytes), the limit of ${context.req.method} ${new URL(context.req.url).pathname}: ${fix}`, 413) });
  const importLimit = limitBody(MAXIMUM_IMPORT_BYTES, "the label file", "split it into smaller JSONL files and import each");
  const importFormLimit = limitBody(MAXIMUM_IMPORT_BYTES + IMPORT_FORM_FRAMING_BYTES, "the import form", "split the file into smaller JSONL files and import each");
  const lineageLimit = limitBody(MAXIMUM_LINEAGE_BYTES, "the run lineage", "send only the fields of contracts/run-lineage.ts");
  const comparisonLimit = limitBody(MAXIMUM_COMPARISON_BYTES, "the case comparison", `send at most ${MAXIMUM_COMPARED_CASES} cases' digests a request`);
  const reviewLimit = limitBody(MAXIMUM_REVIEW_BYTES, "the review", "send only verdicts, a root cause and a comment (comments are kept to 4000 characters)");

  async function listed(readers: ScopedReaders, parameters: URLSearchParams, fixed: TraceFilter = {}) {
    const query = parseTraceQuery(parameters);
    if (!query.ok) return query;
    const found = await readers.traces.listTraces({ ...query.value.filter, ...fixed }, { after: query.value.after, limit: query.value.limit });
    const labels = await labelsOf(readers, found.traces.map((trace) => trace.caseResultId));
    const traces: ListedTrace[] = found.traces.map((trace) => {
      const human = humanVerdictOf(labels.get(requestKey({ case_result_id: trace.caseResultId, trace_id: trace.traceId })) ?? []);
      return { ...trace, human, final: finalVerdictOfListed(trace, human) };
    });
    return { ok: true as const, value: { traces, next: found.next } };
  }

  /** The labels of the cases, per request (requestKey): a label counts toward the review of the request it names. */
  async function labelsOf(readers: ScopedReaders, caseResultIds: readonly string[]): Promise<Map<string, HumanLabel[]>> {
    const byRequest = new Map<string, HumanLabel[]>();
    if (caseResultIds.length === 0) return byRequest;
    for (const label of await readers.humanLabels.list({ caseResultIds })) byRequest.set(requestKey(label), [...(byRequest.get(requestKey(label)) ?? []), label]);
    return byRequest;
  }

  // The home page is the traces list: its filters (?service=, ?run=, …) go along, so a shared "/?service=x" link filters.
  app.get("/", (context) => context.redirect(`/traces${new URL(context.req.url).search}`));
  // Browsers ask for it on every page; no icon is better than a 404 in the console.
  app.get("/favicon.ico", (context) => context.body(null, 204));
  app.get("/static/:file", (context) => {
    const asset = staticAssets().get(context.req.param("file"));
    return asset === undefined ? context.text("no such file", 404) : context.body(asset.body, 200, { "Content-Type": asset.contentType, "Cache-Control": "no-cache" });
  });

  app.get("/traces", async (context) => {
    const parameters = new URL(context.req.url).searchParams;
    const found = await listed(context.get("readers"), parameters);
    return context.html(tracesPage(context.get("viewer"), parameters, found.ok ? found.value : { traces: [], next: null }, found.ok ? null : found.error), found.ok ? 200 : 400);
  });
  app.get("/traces/rows", async (context) => {
    const found = await listed(context.get("readers"), new URL(context.req.url).searchParams);
    if (!found.ok) return context.text(found.error, 400);
    return context.html(traceRows(found.value.traces), 200, { [LIST_END_HEADER]: olderTracesHref(new URL(context.req.url).searchParams, found.value.next) ?? "" });
  });
  app.get("/api/traces", async (context) => {
    const found = await listed(context.get("readers"), new URL(context.req.url).searchParams);
    if (!found.ok) return context.json({ error: found.error }, 400);
    return context.json({ traces: found.value.traces, next: found.value.next === null ? null : encodeCursor(found.value.next) });
  });

  // Server-sent events: "ready" once, then "traces" whenever the newest stored trace changes.
  app.get("/api/traces/stream", (context) => {
    const encoder = new TextEncoder();
    let controller: ReadableStreamDefaultController<Uint8Array> | null = null;
    let unsubscribe: (() => void) | null = null;
    const send = (text: string) => {
      try {
        controller?.enqueue(encoder.encode(text));
      } catch {
        // The client is gone; cancel() unsubscribes.
      }
    };
    const body = new ReadableStream<Uint8Array>({
      start(started) {
        controller = started;
      },
      cancel() {
        unsubscribe?.();
      },
    });
    const opened = traceEvents.subscribe(context.get("readers").scope, { reviewer: context.get("reviewer"), authenticated: context.get("authenticated") }, {
      onNewest: (newest) => send(`event: traces\ndata: ${JSON.stringify(newest)}\n\n`),
      onKeepAlive: () => send(": keep-alive\n\n"),
      onClose: () => {
        try {
          controller?.close();
        } catch {
          // Already closed by the client.
        }
      },
    });
    if ("refused" in opened) {
      const message =
        opened.refused === "reviewer"
          ? `ragscope UI: you have ${traceEvents.maxStreamsPerReviewer} live lists open, as many as one reviewer may; this one polls instead (GET /traces/rows or /api/traces) — close a tab to make it live again`
          : "ragscope UI: too many live lists are open; this one polls instead (GET /traces/rows or /api/traces)";
      return refuse(context, message, 503, { "Retry-After": "10" });
    }
    unsubscribe = opened.unsubscribe;
    send("retry: 3000\nevent: ready\ndata: {}\n\n");
    return new Response(body, { headers: { "Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-cache", "X-Accel-Buffering": "no" } });
  });

  async function detailWithLabels(readers: ScopedReaders, caseResultId: string, reviewer: string, request?: TraceRequest): Promise<{ detail: TraceDetail; all: HumanLabel[]; visible: HumanLabel[]; rootCause: AttributedRootCause } | null> {
    const stored = await readers.traces.readTrace(caseResultId, request);
    if (stored === null) return null;
    // Every page and API answer of one trace is built from this: a blind case's gold is withheld here, once.
    const detail = shownTraceDetail(stored);
    // The labels of this request: those of another request of the case (a case sent again) are of another answer.
    const all = labelsOfRequest(await readers.humanLabels.list({ caseResultIds: [caseResultId] }), stored.caseResult);
    // As the trace list and the Failures board attribute it; the label as the list shows it, a blind case's too.
    return { detail, all, visible: visibleLabels(all, reviewer), rootCause: attributedRootCauseOf(stored.evaluationResults, all) };
  }

  /**
   * The stored requests of the address's id when it is a trace id (users arrive with one from their application's
   * logs or APM), under the reader's scope; null when the address names a Case Result (its id, or `?trace=` with it).
   */
  async function requestsOfTraceId(readers: ScopedReaders, id: string, parameters: URLSearchParams): Promise<{ traceId: string; requests: TraceLocation[] } | null> {
    const traceId = requestedTrace(parameters) === undefined ? asTraceId(id) : null;
    return traceId === null ? null : { traceId, requests: await readers.traces.findByTraceId(traceId, MOST_REQUESTS_OF_A_TRACE_ID) };
  }

  /**
   * The request a page's address names (`/traces/<id>` or `/review/<id>`), with its labels; or the answer instead of the
   * page. A trace id redirects (303) to its request's page of the same kind, under its canonical address (the case
   * result id and the trace id: a case sent again is opened as the request the user came with), or, when several
   * requests have it (each tenant that sent it), to the list of them. Found none: 404.
   */
  async function requestOfPage(context: Context<{ Variables: Variables }>, pages: "/traces" | "/review"): Promise<Response | NonNullable<Awaited<ReturnType<typeof detailWithLabels>>>> {
    const id = context.req.param("id") ?? "";
    const parameters = new URL(context.req.url).searchParams;
    const ofTraceId = await requestsOfTraceId(context.get("readers"), id, parameters);
    const [first, ...others] = ofTraceId?.requests ?? [];
    const address = pages === "/traces" ? traceAddress : reviewAddress;
    if (ofTraceId !== null && first !== undefined) return context.redirect(others.length === 0 ? address(first.caseResultId, ofTraceId.traceId) : `/traces?q=${ofTraceId.traceId}`, 303);
    const request = requestedTrace(parameters);
    const found = await detailWithLabels(context.get("readers"), id, context.get("reviewer"), request);
    if (found === null) return badRequest(context, ofTraceId !== null ? traceIdNotStored(ofTraceId.traceId) : traceNotStored(id, request, pages), 404);
    return found;
  }

  app.get("/traces/:id", async (context) => {
    const found = await requestOfPage(context, "/traces");
    if (found instanceof Response) return found;
    return context.html(tracePage(context.get("viewer"), found.detail, humanVerdictOf(found.all), found.visible, found.rootCause));
  });
  app.get("/api/traces/:id", async (context) => {
    const parameters = new URL(context.req.url).searchParams;
    // A trace id answers its request's detail itself, as tracing backends' APIs do (GET /api/traces/<trace id>), with
    // its canonical address in Content-Location; several requests (each tenant that sent it) are 300, listing each.
    const ofTraceId = await requestsOfTraceId(context.get("readers"), context.req.param("id"), parameters);
    if (ofTraceId !== null && ofTraceId.requests.length > 1) {
      const requests = ofTraceId.requests.map((found) => ({ ...found, href: `/api${traceAddress(found.caseResultId, found.traceId)}` }));
      return context.json({ error: traceIdOfSeveralRequests(ofTraceId.traceId, requests.length), requests }, 300);
    }
    const byTraceId = ofTraceId?.requests[0];
    const request = byTraceId === undefined ? requestedTrace(parameters) : { traceId: byTraceId.traceId };
    const caseResultId = byTraceId?.caseResultId ?? context.req.param("id");
    const found = await detailWithLabels(context.get("readers"), caseResultId, context.get("reviewer"), request);
    if (found === null) return context.json({ error: ofTraceId !== null && byTraceId === undefined ? traceIdNotStored(ofTraceId.traceId) : traceNotStored(caseResultId, request) }, 404);
    const human = humanVerdictOf(found.all);
    // The detail's own address: a trace id's answer says which request it is.
    const headers: Record<string, string> = byTraceId === undefined ? {} : { "Content-Location": `/api${traceAddress(byTraceId.caseResultId, byTraceId.traceId)}` };
    return context.json({ ...found.detail, humanVerdict: human, finalVerdict: finalVerdictOfReview(found.detail.caseResult, human), rootCause: found.rootCause, humanLabels: found.visible }, 200, headers);
  });

  async function boardScope(readers: ScopedReaders, parameters: URLSearchParams) {
    if (readers.quality === undefined) return { ok: false as const, error: `${store.describe()} cannot compute the board: the Quality and Failures pages need the ClickHouse store (embedded or a server)` };
    return parseBoardQuery(parameters, await readers.reader.storedSpan(), now());
  }
  app.get("/quality", async (context) => {
    const parameters = new URL(context.req.url).searchParams;
    const scope = await boardScope(context.get("readers"), parameters);
    if (!scope.ok) return context.html(page("Quality over time", context.get("viewer"), boardRefusedPage("/quality", parameters, scope.error)), 400);
    const quality = context.get("readers").quality!;
    const [board, behaviour] = await Promise.all([quality.qualityBoard(scope.value), readBehaviourBoard(quality, scope.value, now())]);
    return context.html(qualityPage(context.get("viewer"), scope.value, board, behaviour));
  });
  app.get("/api/quality", async (context) => {
    const scope = await boardScope(context.get("readers"), new URL(context.req.url).searchParams);
    if (!scope.ok) return context.json({ error: scope.error }, 400);
    const quality = context.get("readers").quality!;
    const [board, behaviour] = await Promise.all([quality.qualityBoard(scope.value), readBehaviourBoard(quality, scope.value, now())]);
    return context.json({ scope: scope.value, board, behaviour });
  });
  app.get("/failures", async (context) => {
    const parameters = new URL(context.req.url).searchParams;
    const scope = await boardScope(context.get("readers"), parameters);
    if (!scope.ok) return context.html(page("Failures", context.get("viewer"), boardRefusedPage("/failures", parameters, scope.error)), 400);
    const [board, services] = await Promise.all([context.get("readers").quality!.failureBoard(scope.value), context.get("readers").quality!.services(scope.value)]);
    return context.html(failuresPage(context.get("viewer"), scope.value, services, board));
  });
  app.get("/api/failures", async (context) => {
    const scope = await boardScope(context.get("readers"), new URL(context.req.url).searchParams);
    if (!scope.ok) return context.json({ error: scope.error }, 400);
    return context.json({ scope: scope.value, board: await context.get("readers").quality!.failureBoard(scope.value) });
  });

  /** The report's settings from the query (?control=&unit=&alpha=&power=&mde=&method=&weight=variant=w), named as the page's form names them. */
  function experimentSettingsText(context: Context<{ Variables: Variables }>): ExperimentReportSettingsText {
    // Trimmed, and a blank field unset (the page's form sends every field), as every other page reads its parameters.
    const parameters = new URL(context.req.url).searchParams;
    const query = (name: string) => queryText(parameters, name);
    return { control: query("control"), unit: query("unit"), alpha: query("alpha"), power: query("power"), mde: query("mde"), method: query("method"), weight: context.req.queries("weight") ?? [] };
  }
  /** The same report `ragscope experiment report` prints, read through this reader's tenant scope. */
  async function experimentReport(context: Context<{ Variables: Variables }>) {
    const text = experimentSettingsText(context);
    const settings = parseExperimentReportSettings(text, (setting) => setting);
    if (!settings.ok) return { status: 400 as const, error: settings.error.join("; "), text };
    const read = await readExperimentReport(context.get("readers").experiments, context.req.param("id")!, settings.value, now());
    if (!read.ok) return { status: 404 as const, error: describeNoExperiment(read.error, "the store for this reader"), text };
    return { status: 200 as const, report: read.value, text };
  }
  app.get("/experiments", async (context) => context.html(experimentsPage(context.get("viewer"), await context.get("readers").experiments.experimentIds())));
  app.get("/api/experiments", async (context) => context.json({ experiments: await context.get("readers").experiments.experimentIds() }));
  app.get("/experiments/:id", async (context) => {
    const found = await experimentReport(context);
    return found.status === 200 ? context.html(experimentReportPage(context.get("viewer"), found.report, found.text)) : badRequest(context, found.error, found.status);
  });
  app.get("/api/experiments/:id", async (context) => {
    const found = await experimentReport(context);
    return found.status === 200 ? context.json(found.report) : context.json({ error: found.error }, found.status);
  });

  app.get("/runs", async (context) => context.html(runsPage(context.get("viewer"), await context.get("readers").traces.listRuns(MAXIMUM_RUNS))));
  app.get("/api/runs", async (context) => context.json({ runs: await context.get("readers").traces.listRuns(MAXIMUM_RUNS) }));
  /**
   * The two runs compared, or which of them has no case this reader may see (another tenant's run reads as one that
   * is not stored; a run whose lineage was recorded and that stored no result yet is listed with 0 cases).
   */
  async function comparison(readers: ScopedReaders, candidateId: string, baselineId: string) {
    const [candidateCases, baselineCases, candidate, baseline] = await Promise.all([readers.reader.loadRunCases(candidateId), readers.reader.loadRunCases(baselineId), readers.reader.readRunSummary(candidateId), readers.reader.readRunSummary(baselineId)]);
    const empty = [candidateCases.length === 0 ? candidateId : null, baselineCases.length === 0 ? baselineId : null].filter((runId) => runId !== null);
    if (empty.length > 0) return { empty: [...new Set(empty)] };
    return { candidate, baseline, comparison: compareRuns(candidateCases, baselineCases, baselineId) };
  }
  const noRun = (empty: readonly string[]) =>
    `no stored results for ${empty.map((runId) => `run "${runId}"`).join(" nor for ")}: a run's results are stored as its cases are evaluated; pick a run with cases on the Runs page`;
  app.get("/runs/compare", async (context) => {
    const candidate = context.req.query("candidate");
    const baseline = context.req.query("baseline");
    if (!candidate || !baseline) return badRequest(context, "give two runs: /runs/compare?candidate=<run id>&baseline=<run id>");
    const compared = await comparison(context.get("readers"), candidate, baseline);
    if (compared.empty !== undefined) return badRequest(context, noRun(compared.empty), 404);
    return context.html(runComparePage(context.get("viewer"), compared.candidate, compared.baseline, compared.comparison));
  });
  app.get("/api/runs/compare", async (context) => {
    const candidate = context.req.query("candidate");
    const baseline = context.req.query("baseline");
    if (!candidate || !baseline) return context.json({ error: "give two runs: ?candidate=<run id>&baseline=<run id>" }, 400);
    const compared = await comparison(context.get("readers"), candidate, baseline);
    if (compared.empty !== undefined) return context.json({ error: noRun(compared.empty) }, 404);
    return context.json({ candidate: compared.candidate, baseline: compared.baseline, comparison: runComparisonJson(compared.comparison) });
  });
  // For `ragscope eval --endpoint` (experiments/target/remote-target.ts): the stored Eval Case of an id and version,
  // and the run's lineage, read and recorded (as the token's tenant, or the one it names: ui/api/record-run-lineage.ts).
  // Compared by digests, never answered with the stored case: a blind split's gold must not be readable by case id.
  app.post("/api/cases/compare", takes(JSON_BODY), comparisonLimit, async (context) => {
    const compared = await compareEvalCases(store.cases, context.get("readers").scope, await context.req.text());
    return compared.ok ? context.json(compared.value) : context.json({ error: compared.error }, 400);
  });
  app.get("/api/runs/:id/lineage", async (context) => context.json({ lineage: await context.get("readers").reader.readRun(context.req.param("id")) }));
  app.put("/api/runs/:id/lineage", takes(JSON_BODY), lineageLimit, async (context) => {
    const recorded = await recordRunLineage(store.runs, context.get("readers").scope, context.req.param("id"), await context.req.text(), context.req.query("tenant"), now());
    return recorded.ok ? context.json({ lineage: recorded.value }) : context.json({ error: recorded.error.message }, recorded.error.status);
  });
  // How many of the run's results carry each tenant value, as the token may read them (every tenant's for a token of
  // all): `ragscope eval --endpoint --baseline` refuses a baseline several tenants' results carry (experiments/run-tenants.ts).
  app.get("/api/runs/:id/tenants", async (context) => context.json({ run_id: context.req.param("id"), tenants: await context.get("readers").reader.countRunTenants(context.req.param("id")) }));
  app.get("/api/runs/:id/summary", async (context) => {
    const summary = await context.get("readers").reader.readRunSummary(context.req.param("id"));
    return summary.cases === 0 ? context.json({ error: `no stored results for run "${context.req.param("id")}"` }, 404) : context.json(summary);
  });

  async function agreement(readers: ScopedReaders, reviewer: string, authenticated: boolean) {
    const labels = await readers.humanLabels.list();
    // Both tables count the labels the viewer may see only: the blind review holds in them too (counted over every
    // label, a table changed the moment two other reviewers labelled a case the viewer had not, telling their verdicts).
    const visible = labelsVisibleTo(labels, reviewer, authenticated);
    // One bulk read for every labelled case (a few queries per thousand), not a trace read each: 2,000 imported labels made the queue take ~40 s.
    const caseResultIds = visible.map((label) => label.case_result_id);
    const evaluations = [...(await readers.traces.readEvaluationResults(caseResultIds)).values()].flat();
    // Those are each case's newest request's results: the judge is compared with the labels of that request only, a
    // label of an earlier answer of a case sent again being of another answer than the one the judge read.
    const newest = new Map([...(await readers.traces.findRequestsOfCases(caseResultIds))].map(([caseResultId, requests]) => [caseResultId, requests[0]?.traceId]));
    const ofNewest = visible.filter((label) => newest.get(label.case_result_id) === label.trace_id);
    return { reviewers: reviewerAgreement(visible), judge: judgeAgreement(ofNewest, evaluations) };
  }
  async function queue(readers: ScopedReaders, parameters: URLSearchParams, reviewer: string) {
    // The cases the evaluation routed to review, by their automatic verdict: each stays in every reviewer's queue
    // after the first review (REVIEWERS_PER_CASE reviewers label each), its row showing where the review stands.
    const found = await listed(readers, parameters, { automaticVerdict: "review_required" });
    if (!found.ok) return found;
    const labels = await labelsOf(readers, found.value.traces.map((trace) => trace.caseResultId));
    const items: QueueItem[] = found.value.traces.map((trace) => {
      const itemLabels = labels.get(requestKey({ case_result_id: trace.caseResultId, trace_id: trace.traceId })) ?? [];
      // The reviewers counted towards the rule are those with a verdict (a metric labelled); the viewer's own verdict
      // comes from their labels alone, so the queue shows nobody another reviewer's verdict before it is decided.
      return { ...trace, labelledByMe: itemLabels.some((label) => label.labeler_id === reviewer), reviewers: trace.human?.reviewers.length ?? 0, myVerdict: reviewerVerdictsOf(itemLabels).get(reviewer) ?? null };
    });
    return { ok: true as const, value: { items, next: found.value.next } };
  }
  app.get("/review", async (context) => {
    const found = await queue(context.get("readers"), new URL(context.req.url).searchParams, context.get("reviewer"));
    if (!found.ok) return badRequest(context, found.error);
    const agreed = await agreement(context.get("readers"), context.get("reviewer"), context.get("authenticated"));
    const parameters = new URL(context.req.url).searchParams;
    // After the import form's redirect: how many labels it saved, said once (a reload does not say it again).
    const notice = takeFlashNotice(context, (waiting) => waiting.kind === "imported", secureCookies(context));
    const imported = notice?.kind === "imported" ? { labels: notice.labels, unchanged: notice.unchanged } : null;
    return context.html(reviewQueuePage(context.get("viewer"), found.value.items, moreReviewsHref(parameters, found.value.next), agreed.reviewers, agreed.judge, imported, parameters.get("verdict") === "review_required", context.get("authenticated")));
  });
  app.get("/api/review", async (context) => {
    const found = await queue(context.get("readers"), new URL(context.req.url).searchParams, context.get("reviewer"));
    if (!found.ok) return context.json({ error: found.error }, 400);
    return context.json({ items: found.value.items, next: found.value.next === null ? null : encodeCursor(found.value.next), agreement: await agreement(context.get("readers"), context.get("reviewer"), context.get("authenticated")) });
  });
  app.get("/review/:id", async (context) => {
    const reviewer = context.get("reviewer");
    const found = await requestOfPage(context, "/review");
    if (found instanceof Response) return found;
    const mine = found.all.filter((label) => label.labeler_id === reviewer);
    const saved = takeFlashNotice(context, (waiting) => waiting.kind === "saved" && waiting.caseResultId === context.req.param("id"), secureCookies(context));
    // A review posted after the session ended, kept until the reviewer signed in again: the form is filled in with it, not saved.
    const restored = await takeReviewDraft(context, draftSecret, context.req.param("id"), secureCookies(context));
    const message = restored !== null ? { kind: "notice" as const, text: RESTORED_REVIEW } : saved?.kind !== "saved" ? null : { kind: "notice" as const, text: saved.commentCut ? COMMENT_CUT : "Saved." };
    return context.html(reviewItemPage(context.get("viewer"), found.detail, reviewMetrics(found.detail.evaluationResults), mine, found.visible, message, restored));
  });

  app.get("/api/labels.jsonl", async (context) => context.body(labelsToJsonl(labelsVisibleTo(await context.get("readers").humanLabels.list(), context.get("reviewer"), context.get("authenticated"))), 200, { "Content-Type": "application/x-ndjson; charset=utf-8", "Content-Disposition": 'attachment; filename="human_labels.jsonl"' }));
  const importLabels = async (readers: ScopedReaders, text: string, author: LabelAuthor) => {
    const parsed = labelsFromJsonl(text, author);
    if (!parsed.ok) return parsed;
    const caseResultIds = [...new Set(parsed.value.labels.map((label) => label.case_result_id))];
    // Each label is bound to the request it reviews; every case's requests read at once.
    const requests = caseResultIds.length === 0 ? new Map<string, TraceLocation[]>() : await readers.traces.findRequestsOfCases(caseResultIds);
    const stored = caseResultIds.length === 0 ? [] : await readers.humanLabels.list({ caseResultIds });
    const bound = bindImportedLabels(parsed.value, requests, stored);
    if (!bound.ok) return bound;
    // Every case's newest request's results read at once: the check asks for most of them, and a trace read each cost
    // seconds per thousand. A label of an earlier request of a case is checked against that request's own metrics.
    const evaluations = await readers.traces.readEvaluationResults(caseResultIds);
    // A label restated on a request a later one of its case replaced counts toward no request: no pass to check.
    const ofStoredRequests = bound.value.filter((label) => label.trace_id === "" || requests.get(label.case_result_id)?.some((request) => request.traceId === label.trace_id));
    const passes = await checkImportedPasses(ofStoredRequests, stored, async (caseResultId, traceId) => {
      if (requests.get(caseResultId)?.[0]?.traceId !== traceId) {
        const request = await readers.traces.readTrace(caseResultId, { traceId });
        if (request === null) return null;
        // A case sent again the same day from another service keeps both requests, but Evaluation Results are one per
        // case, evaluator and day: the later request's replaced the earlier's, whose metrics are then unknown.
        if (request.evaluationResults.length === 0) return { unavailable: "whose Evaluation Results a later request of the case replaced, so the metrics it offered for review are not known: label its newest request, or fail a metric" };
        return reviewMetrics(request.evaluationResults);
      }
      const results = evaluations.get(caseResultId);
      return results === undefined ? null : reviewMetrics(results);
    });
    if (!passes.ok) return passes;
    const moved = movedOffByImport(parsed.value, bound.value, stored, author.importedAt);
    if (!moved.ok) return moved;
    try {
      await readers.humanLabels.save([...bound.value, ...moved.value]);
    } catch (error) {
      // Labels for another tenant's case results (or ones not stored): the whole file is refused, and which ids exist is not said.
      if (error instanceof OutOfScopeError) return { ok: false as const, error: error.message };
      throw error;
    }
    const outlasted = outlastedOnImport(bound.value, stored);
    return { ok: true as const, value: { imported: bound.value.length - outlasted, outlasted } };
  };
  app.post("/api/labels.jsonl", takes(JSON_LINES_BODY), importLimit, async (context) => {
    const imported = await importLabels(context.get("readers"), await context.req.text(), { reviewer: context.get("reviewer"), authenticated: context.get("authenticated"), importedAt: new Date(now()).toISOString() });
    if (!imported.ok) return context.json({ error: imported.error }, 400);
    const { outlasted } = imported.value;
    return context.json({ imported: imported.value.imported, ...(outlasted === 0 ? {} : { unchanged: outlasted, unchanged_reason: OUTLASTED_LINES }) });
  });
  // Before /review/:id, which would take "import" for a case result id (a case result so named can still be read, not labelled by a form).
  app.post("/review/import", takes(FILE_FORM_BODY), importFormLimit, async (context) => {
    // The form's refusals lead back to the queue, where the import form is.
    const refused = (message: string, status: 400 | 413 = 400) => context.html(page("Error", context.get("viewer"), html`<p class="error" id="error">${message}</p><p><a href="/review" id="back">Back to the review queue</a></p>`), status);
    const form = await readForm(context);
    if (!form.ok) return refused(form.error);
    const file = form.value.file;
    // A form sent without choosing a file carries an empty part with no file name: it imported nothing and said nothing.
    if (!(file instanceof File) || (file.name === "" && file.size === 0)) return refused("choose a JSONL file to import");
    if (file.size > MAXIMUM_IMPORT_BYTES) return refused(`the label file is larger than ${describeBytes(MAXIMUM_IMPORT_BYTES)} (${MAXIMUM_IMPORT_BYTES} bytes): split it into smaller JSONL files and import each`, 413);
    const imported = await importLabels(context.get("readers"), await file.text(), { reviewer: context.get("reviewer"), authenticated: context.get("authenticated"), importedAt: new Date(now()).toISOString() });
    if (!imported.ok) return refused(imported.error);
    setFlashNotice(context, { kind: "imported", labels: imported.value.imported, unchanged: imported.value.outlasted }, secureCookies(context));
    return context.redirect("/review", 303);
  });

  app.post("/review/:id", takes(REVIEW_BODY), reviewLimit, async (context) => {
    const reviewer = context.get("reviewer");
    const caseResultId = context.req.param("id");
    // The request the form was shown for (its action keeps `?trace=`): its metrics are the ones the form offered.
    const request = requestedTrace(new URL(context.req.url).searchParams);
    const stored = await context.get("readers").traces.readTrace(caseResultId, request);
    if (stored === null) return badRequest(context, traceNotStored(caseResultId, request, "/review"), 404);
    // The form comes back with the case when a submission is refused: shown as the review page shows it, gold withheld.
    const detail = shownTraceDetail(stored);
    const read = wantsJson(context) ? await readJsonObject(context) : await readForm(context);
    if (!read.ok) return badRequest(context, read.error);
    const form = read.value;
    if (form.verdicts !== undefined && !isPlainObject(form.verdicts)) return badRequest(context, 'verdicts: give an object of metric to "pass" or "fail", e.g. {"verdicts": {"faithfulness": "fail"}}');
    // Without a prototype: a metric named "__proto__" is a key like any other (refused below as no judged metric), not a
    // write to the prototype that dropped the verdict and saved the rest of the review as if it held none.
    const verdicts = Object.create(null) as Record<string, "pass" | "fail">;
    const given = (form.verdicts ?? {}) as Record<string, unknown>;
    for (const [key, value] of [...Object.entries(form), ...Object.entries(given).map(([metric, verdict]) => [`metric:${metric}`, verdict] as const)]) {
      if (!key.startsWith("metric:")) continue;
      if (value !== "pass" && value !== "fail") return badRequest(context, `${key}: give pass or fail`);
      verdicts[key.slice("metric:".length)] = value;
    }
    const rootCause = typeof form.root_cause === "string" && form.root_cause !== "" ? form.root_cause : null;
    // A browser sends a textarea's line breaks as CRLF but counts each as one character against its maxlength: read as
    // the reviewer typed them, a comment the browser allowed is never over the limit.
    const fullComment = typeof form.comment === "string" ? form.comment.replace(/\r\n/g, "\n") : "";
    // Cut on a whole character (a surrogate pair split in two made the store refuse the save), and said: never dropped silently.
    const comment = cutText(fullComment, MAXIMUM_COMMENT_CHARACTERS);
    const commentCut = comment.length < fullComment.length;
    // Every request's labels of the case: the reviewer's labels of another request are moved off it (labelsOfSubmission).
    const earlierOfCase = await context.get("readers").humanLabels.list({ caseResultIds: [caseResultId] });
    const metrics = reviewMetrics(detail.evaluationResults);
    const labels = labelsOfSubmission({ caseResultId, traceId: stored.caseResult.trace_id, reviewer, verdicts, rootCause, comment, labeledAt: new Date(now()).toISOString() }, metrics, earlierOfCase);
    if (!labels.ok) {
      if (wantsJson(context)) return badRequest(context, labels.error);
      // A browser gets the form back with what the reviewer chose and why it was not saved, rather than an error page.
      const earlier = labelsOfRequest(earlierOfCase, stored.caseResult);
      const mine = earlier.filter((label) => label.labeler_id === reviewer);
      return context.html(reviewItemPage(context.get("viewer"), detail, metrics, mine, visibleLabels(earlier, reviewer), { kind: "error", text: labels.error }, { verdicts, rootCause, comment }), 400);
    }
    await context.get("readers").humanLabels.save(labels.value);
    if (wantsJson(context)) return context.json({ saved: labels.value, comment_cut: commentCut });
    setFlashNotice(context, { kind: "saved", caseResultId, commentCut }, secureCookies(context));
    return context.redirect(reviewAddress(caseResultId, request?.traceId ?? ""), 303);
  });

  app.notFound((context) => {
    const path = new URL(context.req.url).pathname;
    const allowed = allowedMethods(app.routes, path);
    if (allowed.length > 0) return badRequest(context, `${path} does not take ${context.req.method}: use ${allowed.join(", ")}`, 405, { Allow: allowed.join(", ") });
    return badRequest(context, `nothing at ${context.req.method} ${path}`, 404);
  });
  app.onError((error, context) => {
    // The cause is the operator's to read, on stderr; the answer names no internals (an engine's or V8's message can
    // name tables, settings or paths) and gives the time to find the line by.
    const at = new Date(now()).toISOString();
    const { pathname } = new URL(context.req.url);
    (options.logError ?? console.error)(`ragscope UI: ${context.req.method} ${pathname} failed at ${at}: ${error.stack ?? error.message}`);
    const message = `the UI could not answer ${context.req.method} ${pathname} (an internal error at ${at}; the server's log has its cause)`;
    return wantsJson(context) ? context.json({ error: message }, 500) : context.text(message, 500);
  });
  return app;
}

/** A JSON body that must be an object; malformed JSON or another value is the client's mistake (a 400), not the server's. */
async function readJsonObject(context: Context): Promise<Result<Record<string, unknown>, string>> {
  const text = await context.req.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return failure(`the body is not valid JSON (${(error as Error).message}): send an object such as {"verdicts": {"<metric>": "pass"}, "root_cause": "<label>", "comment": "…"}`);
  }
  if (!isPlainObject(parsed)) return failure(`the body is JSON ${parsed === null ? "null" : Array.isArray(parsed) ? "array" : typeof parsed}, not an object: send an object such as {"verdicts": {"<metric>": "pass"}, "root_cause": "<label>", "comment": "…"}`);
  return success(parsed);
}

/** A urlencoded or multipart form; a malformed one (a broken multipart boundary) is the client's mistake. */
async function readForm(context: Context): Promise<Result<Record<string, unknown>, string>> {
  try {
    return success(await context.req.parseBody());
  } catch (error) {
    return failure(`the form could not be read (${(error as Error).message}): post it as multipart/form-data or application/x-www-form-urlencoded`);
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function describeBytes(bytes: number): string {
  // The lineage's 64 KiB was "0.06 MiB".
  if (bytes < MEBIBYTE) return bytes % 1024 === 0 ? `${bytes / 1024} KiB` : `${(bytes / 1024).toFixed(2)} KiB`;
  return bytes % MEBIBYTE === 0 ? `${bytes / MEBIBYTE} MiB` : `${(bytes / MEBIBYTE).toFixed(2)} MiB`;
}

/** A refusal before or outside a page: JSON `{ error }` for the API (as its other errors), plain text otherwise. */
function refuse(context: Context, message: string, status: 400 | 401 | 403 | 421 | 503, headers: Record<string, string> = {}): Response {
  return wantsJson(context) ? context.json({ error: message }, status, headers) : context.text(message, status, headers);
}

/**
 * A browser opening a page (not the API, not an asset): it asks for HTML by
 * GET. Such a request without a session is answered with the sign-in page.
 */
function opensPage(context: Context, url: URL): boolean {
  if (context.req.method !== "GET" && context.req.method !== "HEAD") return false;
  if (url.pathname.startsWith("/api/") || url.pathname.startsWith("/static/")) return false;
  return (context.req.header("accept") ?? "").includes("text/html");
}

/**
 * A browser's form post (not the API, not a client with a bearer token, not
 * JSON): a form's body, or a request asking for HTML. Such a post without a
 * session is answered with the sign-in page, saying the form was not saved.
 */
function postsForm(context: Context, url: URL): boolean {
  if (context.req.method !== "POST" || url.pathname.startsWith("/api/")) return false;
  if (bearerTokenOf(context.req.header("authorization")) !== null) return false;
  const type = (context.req.header("content-type") ?? "").toLowerCase();
  if (type.startsWith("application/json")) return false;
  return type.startsWith("application/x-www-form-urlencoded") || type.startsWith("multipart/form-data") || (context.req.header("accept") ?? "").includes("text/html");
}

/** One segment of a path, percent-decoded as the router decodes a parameter; null when it is not valid percent-encoding. */
function decodedPathPart(part: string): string | null {
  try {
    return decodeURIComponent(part);
  } catch {
    return null;
  }
}

function wantsJson(context: Context): boolean {
  return new URL(context.req.url).pathname.startsWith("/api/") || (context.req.header("content-type") ?? "").startsWith("application/json");
}
