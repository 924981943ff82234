/**
 * How the web UI reads a reviewer's credentials and hands out its session
 * cookie, over HTTP to `ragscope serve` as a user starts it (bin/ragscope.js
 * as a subprocess) and to the UI server as serve starts it (in-process, the
 * in-memory store):
 *
 * - The Authorization scheme is case-insensitive (RFC 9110 §11.1, RFC 6750
 *   §2.1): `bearer <token>` and `BEARER <token>` are the token, not a reason
 *   to fall back to the cookie.
 * - RAGSCOPE_UI_BEHIND_TLS=true (a proxy serves the UI over HTTPS): the
 *   sign-in's cookie is Secure, and the browser's https origin is this UI's
 *   own for the sign-in post and state-changing requests. Without the setting a client's
 *   X-Forwarded-Proto changes nothing (anyone can send it).
 * - serve's receiver on 0.0.0.0 without RAGSCOPE_AUTH_TOKENS warns, as
 *   `ragscope receive` does (test/integration/cli/role-settings.test.ts).
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import http from "node:http";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { createMemoryStore } from "../../store/memory/memory-store.js";
import { startUiServer, type UiServer } from "../../ui/ui-server.js";

const ragscope = fileURLToPath(new URL("../../bin/ragscope.js", import.meta.url));
const TOKEN = "reviewer-token-of-alice-0123456789";

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function send(serverUrl: string, request: { method?: string; path: string; headers?: Record<string, string>; body?: string }): Promise<Answer> {
  const { hostname, port } = new URL(serverUrl);
  return new Promise((resolve, reject) => {
    const outgoing = http.request({ hostname, port, method: request.method ?? "GET", path: request.path, headers: request.headers, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString("utf8") }));
    });
    outgoing.on("error", reject);
    outgoing.end(request.body);
  });
}

/** The sign-in form's post (ui/pages/sign-in-page.ts) as a browser on `origin` sends it. */
function signIn(serverUrl: string, origin: string, headers: Record<string, string> = {}): Promise<Answer> {
  const body = new URLSearchParams({ token: TOKEN, next: "/traces" }).toString();
  return send(serverUrl, { method: "POST", path: "/login", headers: { origin, "content-type": "application/x-www-form-urlencoded", "content-length": String(Buffer.byteLength(body)), ...headers }, body });
}

/** The Set-Cookie header of the session cookie, attributes split and lower-cased ("secure", "httponly", "samesite=strict", "path=/"). */
function sessionCookieAttributes(answer: Answer): string[] {
  const cookie = (answer.headers["set-cookie"] ?? []).find((header) => header.startsWith("ragscope_token="));
  assert.ok(cookie !== undefined, `a session cookie is set: ${JSON.stringify(answer.headers)}`);
  return cookie.split(";").slice(1).map((attribute) => attribute.trim().toLowerCase());
}

describe("ragscope serve with RAGSCOPE_UI_BEHIND_TLS=true, a reviewer token, and its receiver on 0.0.0.0 without a token", () => {
  let folder: string;
  let child: ChildProcess | undefined;
  let exited: Promise<number | null>;
  let output = "";
  let uiUrl = "";

  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-ui-tls-"));
    const environment = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("RAGSCOPE_")));
    child = spawn(process.execPath, [ragscope, "serve", "--host", "0.0.0.0", "--port", "0", "--metrics-port", "0", "--ui-port", "0", "--data-dir", path.join(folder, "chdb")], {
      env: { ...environment, RAGSCOPE_UI_TOKENS: `alice=${TOKEN}`, RAGSCOPE_UI_BEHIND_TLS: "true" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    exited = new Promise((resolve) => child!.once("exit", (code) => resolve(code)));
    while (!/web UI and read API on/.test(output) && child.exitCode === null) await new Promise((resolve) => setTimeout(resolve, 100));
    uiUrl = /web UI and read API on (http:\/\/[\d.:]+)/.exec(output)?.[1] ?? "";
    assert.ok(uiUrl !== "", output);
  });

  after(async () => {
    if (child !== undefined && child.exitCode === null) {
      child.kill("SIGTERM");
      await exited;
    }
    await rm(folder, { recursive: true, force: true });
  });

  test("the receiver's warning names RAGSCOPE_AUTH_TOKENS", () => {
    assert.match(output, /^ragscope serve: warning: the OTLP\/HTTP receiver listens on 0\.0\.0\.0, which is not a loopback address, and asks no token: .*set RAGSCOPE_AUTH_TOKENS=/m);
  });

  test("the Authorization scheme is matched in any case; a wrong token in it is still 401", async () => {
    for (const scheme of ["Bearer", "bearer", "BEARER", "bEaReR"]) {
      const answer = await send(uiUrl, { path: "/api/traces", headers: { authorization: `${scheme} ${TOKEN}` } });
      assert.equal(answer.status, 200, `${scheme}: ${answer.body}`);
    }
    const wrong = await send(uiUrl, { path: "/api/traces", headers: { authorization: "bearer not-the-token-0123456789" } });
    assert.equal(wrong.status, 401);
  });

  test("signing in from the https origin sets a Secure, HttpOnly, SameSite=Strict cookie; from the http one it is refused", async () => {
    const host = new URL(uiUrl).host;
    assert.equal((await signIn(uiUrl, `http://${host}`)).status, 403, "the browser's pages are https: an http origin is not this UI's");
    const answer = await signIn(uiUrl, `https://${host}`);
    assert.equal(answer.status, 303, answer.body);
    const attributes = sessionCookieAttributes(answer);
    for (const expected of ["secure", "httponly", "samesite=strict", "path=/"]) assert.ok(attributes.includes(expected), `${expected} in ${attributes.join("; ")}`);
  });

  test("a state-changing request from the https origin the browser sees is this UI's own; the http one is not", async () => {
    const host = new URL(uiUrl).host;
    const post = (origin: string) =>
      send(uiUrl, { method: "POST", path: "/api/labels.jsonl", headers: { authorization: `Bearer ${TOKEN}`, origin, "content-type": "application/x-ndjson", "content-length": "0" }, body: "" });
    const own = await post(`https://${host}`);
    assert.notEqual(own.status, 403, own.body);
    assert.doesNotMatch(own.body, /cross-origin/);
    const plain = await post(`http://${host}`);
    assert.equal(plain.status, 403, plain.body);
    assert.match(plain.body, new RegExp(`not from this UI \\(https://${host.replace(/[.]/g, "\\.")}\\)`));
  });
});

test("ragscope serve refuses a RAGSCOPE_UI_BEHIND_TLS that is not true or false, exit 2, naming the variable", async () => {
  const folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-ui-tls-"));
  try {
    const environment = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("RAGSCOPE_")));
    const result = await new Promise<{ code: number | null; output: string }>((resolve) => {
      const started = spawn(process.execPath, [ragscope, "serve", "--port", "0", "--metrics-port", "0", "--ui-port", "0", "--data-dir", path.join(folder, "chdb")], { env: { ...environment, RAGSCOPE_UI_BEHIND_TLS: "sure" }, stdio: ["ignore", "pipe", "pipe"] });
      let text = "";
      started.stdout.on("data", (chunk: Buffer) => (text += chunk.toString()));
      started.stderr.on("data", (chunk: Buffer) => (text += chunk.toString()));
      started.on("exit", (code) => resolve({ code, output: text }));
    });
    assert.equal(result.code, 2, result.output);
    assert.match(result.output, /ragscope serve: RAGSCOPE_UI_BEHIND_TLS: must be true or false \(also accepted, in any case: 1\/0, yes\/no, on\/off\), not "sure"/);
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
});

describe("the UI server without RAGSCOPE_UI_BEHIND_TLS", () => {
  let server: UiServer;
  before(async () => {
    server = await startUiServer({ host: "127.0.0.1", port: 0, store: createMemoryStore(), access: { tokens: new Map([[TOKEN, "alice"]]) } });
  });
  after(async () => {
    await server.close();
  });

  test("a plain-HTTP sign-in's cookie is not Secure (a browser would drop it), whatever X-Forwarded-Proto a client sends", async () => {
    for (const headers of [{}, { "x-forwarded-proto": "https" }] as Record<string, string>[]) {
      const attributes = sessionCookieAttributes(await signIn(server.url, new URL(server.url).origin, headers));
      assert.ok(!attributes.includes("secure"), `${JSON.stringify(headers)}: ${attributes.join("; ")}`);
      assert.ok(attributes.includes("httponly") && attributes.includes("samesite=strict"), attributes.join("; "));
    }
  });

  test("lower-case bearer reads as the token here too; another scheme leaves the cookie to count", async () => {
    const lower = await send(server.url, { path: "/api/traces", headers: { authorization: `bearer ${TOKEN}` } });
    assert.equal(lower.status, 200, lower.body);
    const basicWithCookie = await send(server.url, { path: "/api/traces", headers: { authorization: "Basic cHJveHk6cHJveHk=", cookie: `ragscope_token=${TOKEN}` } });
    assert.equal(basicWithCookie.status, 200, basicWithCookie.body);
  });
});
