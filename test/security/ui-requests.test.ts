/**
 * Hostile and malformed requests to the web UI (ui/ui-app.ts), over HTTP to
 * the UI server as `ragscope serve` starts it (ui/ui-server.ts, in-process on
 * 127.0.0.1 with the in-memory store): one server without tokens (the
 * loopback default) and one with a reviewer token.
 *
 * - DNS rebinding: a page on evil.example whose name now resolves to
 *   127.0.0.1 sends Host and Origin of evil.example; the tokenless UI must
 *   neither answer nor store its labels.
 * - Signing in (a ?token= link, confirmed by a post to /login) must return
 *   only to a path of this server, never to a protocol-relative
 *   `//evil.example/…` (login CSRF itself: test/security/ui-login-csrf.test.ts).
 * - The import form on /review posts to /review/import, which must not be
 *   taken for a case result id.
 * - Bodies over a route's limit are refused before they are read: at once on
 *   their Content-Length, and, sent chunked, once the limit is passed in bytes.
 * - Malformed JSON is a 400, not a 500; unknown API paths answer JSON; every
 *   answer, refusals included, carries the security headers.
 */
import assert from "node:assert/strict";
import http from "node:http";
import { after, before, describe, test } from "node:test";
import { ROOT_CAUSE_LABEL_NAMES } from "../../evaluators/root-cause/root-cause-labels.js";
import { createMemoryStore } from "../../store/memory/memory-store.js";
import { startUiServer, type UiServer } from "../../ui/ui-server.js";
import { recordAttack, residentMemoryMb } from "../support/attack-report.js";
import { buildCaseResult } from "../support/case-results.js";

const TOKEN = "reviewer-token-of-alice-0123456789";
const CASE_RESULT_ID = "cr_ui_requests_1";
const ROOT_CAUSE = ROOT_CAUSE_LABEL_NAMES[0]!;
const MEBIBYTE = 1024 * 1024;
/** The limits documented in SECURITY.md, "Web UI". */
const IMPORT_LIMIT = 20 * MEBIBYTE;
const REVIEW_LIMIT = MEBIBYTE;
/** The import form's limit leaves room for its multipart framing around a file at the import limit. */
const IMPORT_FORM_LIMIT = IMPORT_LIMIT + 64 * 1024;
/**
 * How long to wait for a refusal that needs no body: a server waiting for the 400 MiB it was promised never answers
 * (the UI's request timeout is 60 s), one that refuses unread answers at once. Generous, so that a loaded machine
 * cannot fail the test; no duration is asserted.
 */
const REFUSAL_WAIT_MILLISECONDS = 30_000;

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** Body bytes the client had handed to the socket when the answer came. */
  bytesSent: number;
  /** No answer within the wait: the server was still reading (or waiting for) the body. */
  timedOut: boolean;
}

interface RawRequest {
  method?: string;
  /** Sent exactly as given (`//evil.example/x` stays two slashes). */
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** A chunked body of this many bytes, written in 64 KiB chunks until the server answers. */
  chunkedBytes?: number;
  waitMilliseconds?: number;
}

/** One request on a connection of its own, with whatever Host, path and framing the test gives. */
function send(serverUrl: string, request: RawRequest): Promise<Answer> {
  const { hostname, port } = new URL(serverUrl);
  return new Promise((resolve, reject) => {
    let bytesSent = 0;
    let answered = false;
    const outgoing = http.request({ hostname, port, method: request.method ?? "GET", path: request.path, headers: request.headers, agent: false }, (response) => {
      answered = true;
      const sentWhenAnswered = bytesSent;
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => {
        clearTimeout(timer);
        outgoing.destroy();
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString("utf8"), bytesSent: sentWhenAnswered, timedOut: false });
      });
    });
    const timer = setTimeout(() => {
      outgoing.destroy();
      resolve({ status: 0, headers: {}, body: "", bytesSent, timedOut: true });
    }, request.waitMilliseconds ?? 60_000);
    // The server may close the connection while the client still sends: that is a refusal, not a test failure.
    outgoing.on("error", (error) => {
      if (!answered) {
        clearTimeout(timer);
        reject(error);
      }
    });
    if (request.chunkedBytes !== undefined) {
      const chunk = Buffer.alloc(64 * 1024, "a");
      const writeMore = () => {
        while (!answered && !outgoing.destroyed && bytesSent < request.chunkedBytes!) {
          bytesSent += chunk.length;
          if (!outgoing.write(chunk)) return outgoing.once("drain", writeMore);
        }
        if (!answered && !outgoing.destroyed) outgoing.end();
      };
      writeMore();
      return;
    }
    if (request.body !== undefined) {
      outgoing.write(request.body);
      bytesSent += Buffer.byteLength(request.body);
    }
    // With a Content-Length larger than what was written, the request stays open: the server is waiting for the rest.
    if (request.headers?.["content-length"] === undefined || Number(request.headers["content-length"]) === bytesSent) outgoing.end();
    // node sends the headers with the first body bytes: send them now, as a client about to upload would.
    else outgoing.flushHeaders();
  });
}

function assertSecurityHeaders(answer: Answer, what: string): void {
  assert.match(String(answer.headers["content-security-policy"]), /default-src 'self'/, `${what}: Content-Security-Policy`);
  assert.equal(answer.headers["x-content-type-options"], "nosniff", `${what}: X-Content-Type-Options`);
  assert.equal(answer.headers["referrer-policy"], "same-origin", `${what}: Referrer-Policy`);
}

describe("hostile and malformed requests to the web UI", () => {
  let tokenless: UiServer;
  let withToken: UiServer;
  const bearer = { authorization: `Bearer ${TOKEN}` };

  before(async () => {
    const store = createMemoryStore();
    const written = await store.results.write([{ caseResult: { ...buildCaseResult({ output: "an answer" }), case_result_id: CASE_RESULT_ID, quality_status: "review_required" as const }, evaluationResults: [] }]);
    assert.ok(written.ok);
    tokenless = await startUiServer({ host: "127.0.0.1", port: 0, store, access: { tokens: new Map() } });
    withToken = await startUiServer({ host: "127.0.0.1", port: 0, store, access: { tokens: new Map([[TOKEN, "alice"]]) } });
  });
  after(async () => {
    await tokenless?.close();
    await withToken?.close();
  });

  const storedLabels = async (server: UiServer) => (await send(server.url, { path: "/api/labels.jsonl", headers: bearer })).body;

  test("DNS rebinding: without tokens, a request naming another host is refused and stores nothing", async () => {
    const port = new URL(tokenless.url).port;
    const review = JSON.stringify({ root_cause: ROOT_CAUSE, comment: "written by evil.example" });
    const posted = await send(tokenless.url, {
      method: "POST",
      path: `/review/${CASE_RESULT_ID}`,
      headers: { host: `evil.example:${port}`, origin: `http://evil.example:${port}`, "content-type": "application/json", "content-length": String(Buffer.byteLength(review)) },
      body: review,
    });
    assert.equal(posted.status, 421, posted.body);
    assert.match((JSON.parse(posted.body) as { error: string }).error, /refused the host "evil\.example:\d+": without reviewer tokens the UI answers only to localhost, 127\.0\.0\.1 and \[::1\]/);
    assertSecurityHeaders(posted, "the 421");
    assert.doesNotMatch(await storedLabels(tokenless), /evil\.example/, "no label was stored");

    for (const host of [`evil.example:${port}`, "evil.example", `localhost.evil.example:${port}`, `127.0.0.1.nip.io:${port}`, `[::2]:${port}`]) {
      const read = await send(tokenless.url, { path: "/api/traces", headers: { host } });
      assert.equal(read.status, 421, `Host ${host}: ${read.body}`);
      assert.doesNotMatch(read.body, new RegExp(CASE_RESULT_ID));
    }
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LocalHost:${port}`, `[::1]:${port}`, "localhost"]) {
      const read = await send(tokenless.url, { path: "/api/traces", headers: { host } });
      assert.equal(read.status, 200, `Host ${host}: ${read.body}`);
    }
    // With tokens the token is the guard (and the UI may be served under any name): a foreign Host still works.
    const withTokenRead = await send(withToken.url, { path: "/api/traces", headers: { ...bearer, host: "ragscope.example.com" } });
    assert.equal(withTokenRead.status, 200, withTokenRead.body);
    recordAttack({ attack: "UI: DNS rebinding (Host evil.example) without tokens", outcome: "421, nothing read or stored" });
  });

  test("signing in returns only to a path of this server", async () => {
    const origin = new URL(withToken.url).origin;
    for (const [path, expected] of [
      [`//evil.example/x?token=${TOKEN}`, "/evil.example/x"],
      [`///evil.example/x?token=${TOKEN}&run=a`, "/evil.example/x?run=a"],
      [`/traces?token=${TOKEN}&run=a`, "/traces?run=a"],
    ] as const) {
      // The link's page: the sign-in form, whose return path is this server's, and no session yet.
      const shown = await send(withToken.url, { path });
      assert.equal(shown.status, 200, path);
      assert.equal(shown.headers["set-cookie"], undefined, path);
      assert.equal(/<input type="hidden" name="next" value="([^"]*)">/.exec(shown.body)?.[1]?.replaceAll("&amp;", "&"), expected, path);
      assertSecurityHeaders(shown, `the sign-in page of ${path}`);
    }
    // The form's next field is posted back, so anyone can post any: each is read as a path of this server.
    for (const [next, expected] of [
      ["//evil.example/x", "/evil.example/x"],
      [`///evil.example/x?token=${TOKEN}&run=a`, "/evil.example/x?run=a"],
      ["/\\evil.example/x", "/evil.example/x"],
      ["https://evil.example/x", "/"],
      ["javascript:alert(1)", "/"],
      [`/traces?token=${TOKEN}&run=a`, "/traces?run=a"],
    ] as const) {
      const body = new URLSearchParams({ token: TOKEN, next }).toString();
      const answer = await send(withToken.url, { method: "POST", path: "/login", headers: { origin, "content-type": "application/x-www-form-urlencoded", "content-length": String(Buffer.byteLength(body)) }, body });
      assert.equal(answer.status, 303, `${next}: ${answer.body}`);
      assert.equal(answer.headers.location, expected, next);
      assert.equal(new URL(answer.headers.location!, withToken.url).origin, origin, next);
      assert.match(String(answer.headers["set-cookie"]), /ragscope_token=.*HttpOnly.*SameSite=Strict/i);
      assertSecurityHeaders(answer, `the 303 of next=${next}`);
    }
    recordAttack({ attack: "UI: open redirect through sign-in (//evil.example, next=https://evil.example)", outcome: "303 to a path of this server" });
  });

  test("the import form on /review imports a JSONL file", async () => {
    const line = JSON.stringify({ case_result_id: CASE_RESULT_ID, metric: "root_cause", verdict: "fail", note: ROOT_CAUSE, labeled_at: "2026-07-08T10:00:00.000Z" });
    const form = new FormData();
    form.append("file", new Blob([`${line}\n`], { type: "application/x-ndjson" }), "labels.jsonl");
    const posted = await fetch(`${withToken.url}/review/import`, { method: "POST", headers: bearer, body: form, redirect: "manual" });
    assert.equal(posted.status, 303, await posted.text());
    // The queue then says how many labels the file held (test/e2e/ui/ui-walkthrough.test.ts).
    // Without the count in the address (a reload would say it again): it rides in a cookie the queue reads once.
    assert.equal(posted.headers.get("location"), "/review");
    const notice = /^ragscope_notice=([^;]*)/.exec(posted.headers.get("set-cookie") ?? "")?.[1];
    assert.equal(notice, "imported%3A1");
    const exported = (await storedLabels(withToken)).trim().split("\n").map((text) => JSON.parse(text) as { case_result_id: string; labeler_id: string; labeled_at: string });
    assert.ok(exported.some((label) => label.case_result_id === CASE_RESULT_ID && label.labeler_id === "alice" && label.labeled_at === "2026-07-08T10:00:00.000Z"), JSON.stringify(exported));

    const empty = await fetch(`${withToken.url}/review/import`, { method: "POST", headers: bearer, body: new FormData() });
    assert.equal(empty.status, 400);
    assert.match(await empty.text(), /choose a JSONL file to import/);
  });

  test("a body whose Content-Length is over the route's limit is refused at once, unread", async () => {
    for (const [path, contentType, limit] of [
      ["/api/labels.jsonl", "application/x-ndjson", IMPORT_LIMIT],
      ["/review/import", "multipart/form-data; boundary=x", IMPORT_FORM_LIMIT],
      [`/review/${CASE_RESULT_ID}`, "application/json", REVIEW_LIMIT],
      [`/review/${CASE_RESULT_ID}`, "application/x-www-form-urlencoded", REVIEW_LIMIT],
    ] as const) {
      const answer = await send(withToken.url, { method: "POST", path, headers: { ...bearer, "content-type": contentType, "content-length": String(400 * MEBIBYTE) }, waitMilliseconds: REFUSAL_WAIT_MILLISECONDS });
      assert.ok(!answer.timedOut, `${path} (${contentType}): no answer within ${REFUSAL_WAIT_MILLISECONDS} ms: the server waits for the 400 MiB body`);
      assert.equal(answer.status, 413, `${path}: ${answer.body}`);
      assert.match(answer.body, new RegExp(`is larger than [\\d.]+ MiB \\(${limit} bytes\\), the limit of POST `), answer.body);
      assertSecurityHeaders(answer, `the 413 of ${path}`);
    }
    const json = await send(withToken.url, { method: "POST", path: "/api/labels.jsonl", headers: { ...bearer, "content-type": "application/x-ndjson", "content-length": String(IMPORT_LIMIT + 1) }, waitMilliseconds: REFUSAL_WAIT_MILLISECONDS });
    assert.match(((JSON.parse(json.body) as { error: string }).error), /^the label file is larger than 20 MiB \(20971520 bytes\), the limit of POST \/api\/labels\.jsonl: split it/);
    recordAttack({ attack: "UI: 400 MiB Content-Length to label import and review", outcome: "413 at once, body unread" });
  });

  test("a chunked body is read only up to the route's limit, counted in bytes", async () => {
    const before = residentMemoryMb();
    const sent = 100 * MEBIBYTE;
    const imported = await send(withToken.url, { method: "POST", path: "/api/labels.jsonl", headers: { ...bearer, "content-type": "application/x-ndjson" }, chunkedBytes: sent });
    assert.equal(imported.status, 413, imported.body);
    // What the client wrote before it saw the answer also depends on how fast this machine runs both processes (the
    // server may drain what is in flight while its 413 travels), so the bound is half the body: a server that reads
    // the whole body before it decides answers only after all of it.
    assert.ok(imported.bytesSent < sent / 2, `the server answered after ${imported.bytesSent} of ${sent} bytes: it read the body past the ${IMPORT_LIMIT}-byte limit`);
    const review = await send(withToken.url, { method: "POST", path: `/review/${CASE_RESULT_ID}`, headers: { ...bearer, "content-type": "application/json" }, chunkedBytes: sent });
    assert.equal(review.status, 413, review.body);
    assert.ok(review.bytesSent < sent / 2, `the review route answered after ${review.bytesSent} of ${sent} bytes: it read the body past its ${REVIEW_LIMIT}-byte limit`);
    recordAttack({ attack: "UI: 100 MiB chunked body to label import and review", outcome: `413 after ${Math.round(imported.bytesSent / MEBIBYTE)} MiB and ${Math.round(review.bytesSent / MEBIBYTE)} MiB sent`, peakRssMb: Math.max(before, residentMemoryMb()) });

    // 12 Mi two-byte characters: 24 MiB, over the limit in bytes though under it in UTF-16 code units.
    const wide = `${"é".repeat(12 * MEBIBYTE)}\n`;
    const counted = await send(withToken.url, { method: "POST", path: "/api/labels.jsonl", headers: { ...bearer, "content-type": "application/x-ndjson", "content-length": String(Buffer.byteLength(wide)) }, body: wide });
    assert.equal(counted.status, 413, counted.body);
  });

  test("a review that is not a JSON object is a 400 that says so, not a 500", async () => {
    for (const [body, expected] of [
      ["{bad", /^the body is not valid JSON \(/],
      ["null", /^the body is JSON null, not an object/],
      ["[1]", /^the body is JSON array, not an object/],
      ['"fail"', /^the body is JSON string, not an object/],
      ['{"verdicts":"fail"}', /^verdicts: give an object of metric to "pass" or "fail"/],
      ['{"verdicts":null}', /^verdicts: give an object/],
    ] as const) {
      const answer = await fetch(`${tokenless.url}/review/${CASE_RESULT_ID}`, { method: "POST", headers: { "content-type": "application/json" }, body });
      assert.equal(answer.status, 400, body);
      assert.match(((await answer.json()) as { error: string }).error, expected, body);
    }
    const broken = await fetch(`${tokenless.url}/review/${CASE_RESULT_ID}`, { method: "POST", headers: { "content-type": "multipart/form-data; boundary=nothing" }, body: "not a multipart body" });
    assert.equal(broken.status, 400, await broken.text());
    const valid = await fetch(`${tokenless.url}/review/${CASE_RESULT_ID}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ root_cause: ROOT_CAUSE, comment: "fine" }) });
    assert.equal(valid.status, 200, await valid.text());
    recordAttack({ attack: "UI: malformed JSON review ({bad, null, [1])", outcome: "400 with the reason" });
  });

  test("every answer carries the security headers; trace data is not cached; unknown API paths answer JSON", async () => {
    const unauthenticated = await send(withToken.url, { path: "/api/traces" });
    assert.equal(unauthenticated.status, 401);
    assertSecurityHeaders(unauthenticated, "the 401");
    const crossOrigin = await send(withToken.url, { method: "POST", path: `/review/${CASE_RESULT_ID}`, headers: { ...bearer, origin: "http://evil.example", "content-type": "application/json", "content-length": "2" }, body: "{}" });
    assert.equal(crossOrigin.status, 403);
    assertSecurityHeaders(crossOrigin, "the 403");

    for (const path of ["/api/traces", `/api/traces/${CASE_RESULT_ID}`, "/traces", `/review/${CASE_RESULT_ID}`, "/api/labels.jsonl"]) {
      const answer = await send(withToken.url, { path, headers: bearer });
      assert.equal(answer.status, 200, path);
      assert.equal(answer.headers["cache-control"], "no-store", path);
      assertSecurityHeaders(answer, path);
    }
    const asset = await send(withToken.url, { path: "/static/charts.js", headers: bearer });
    assert.equal(asset.status, 200);
    assert.equal(asset.headers["cache-control"], "no-cache", "a static asset holds no trace data and may be revalidated");

    const unknown = await send(withToken.url, { path: "/api/no-such-route", headers: bearer });
    assert.equal(unknown.status, 404);
    assert.match(String(unknown.headers["content-type"]), /^application\/json/);
    assert.deepEqual(JSON.parse(unknown.body), { error: "nothing at GET /api/no-such-route" });
    assertSecurityHeaders(unknown, "the 404");
  });

  test("the API's refusals answer JSON with the reason, as its other errors do; pages keep plain text", async () => {
    const port = new URL(tokenless.url).port;
    const refusals: { what: string; server: UiServer; request: RawRequest; status: number; reason: RegExp }[] = [
      { what: "no token", server: withToken, request: { path: "/api/traces" }, status: 401, reason: /a reviewer token is required/ },
      { what: "a token no reviewer has", server: withToken, request: { path: "/api/traces", headers: { authorization: "Bearer not-a-token-of-anyone" } }, status: 401, reason: /a reviewer token is required/ },
      { what: "another origin", server: withToken, request: { method: "POST", path: "/api/labels.jsonl", headers: { ...bearer, origin: "http://evil.example", "content-type": "application/x-ndjson", "content-length": "0" } }, status: 403, reason: /cross-origin request refused: the request came from "http:\/\/evil\.example"/ },
      // No Origin, but the browser's word that another site sent it (SameSite lets a sibling subdomain's form carry the cookie).
      { what: "another site, without Origin", server: withToken, request: { method: "POST", path: "/api/labels.jsonl", headers: { ...bearer, "sec-fetch-site": "same-site", "content-type": "application/x-ndjson", "content-length": "0" } }, status: 403, reason: /cross-origin request refused: the browser says it came from another site \(Sec-Fetch-Site: "same-site"\)/ },
      { what: "a foreign host without tokens", server: tokenless, request: { path: "/api/traces", headers: { host: `evil.example:${port}` } }, status: 421, reason: /refused the host "evil\.example:\d+"/ },
    ];
    for (const refusal of refusals) {
      const answer = await send(refusal.server.url, refusal.request);
      assert.equal(answer.status, refusal.status, refusal.what);
      assert.match(String(answer.headers["content-type"]), /^application\/json/, refusal.what);
      assert.match((JSON.parse(answer.body) as { error: string }).error, refusal.reason, refusal.what);
      assertSecurityHeaders(answer, refusal.what);
    }
    const unauthenticated = await send(withToken.url, { path: "/api/traces" });
    assert.equal(unauthenticated.headers["www-authenticate"], 'Bearer realm="ragscope"', "a 401 names the scheme it wants (RFC 6750)");
    const page = await send(withToken.url, { path: "/traces" });
    assert.equal(page.status, 401);
    assert.match(String(page.headers["content-type"]), /^text\/plain/);
  });
});
