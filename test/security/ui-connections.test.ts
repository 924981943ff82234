/**
 * Idle connections to the web UI's port cannot take down the collector. The
 * UI shares its process with the OTLP receiver and the store, and opening a
 * connection needs no token: with Node's defaults (no bound on the count, 60 s
 * to send headers) about a thousand connections that never finished their
 * headers took `ragscope serve` to its open-file limit — the receiver stopped
 * answering and the process exited on EMFILE.
 *
 * As an attacker meets it: `ragscope serve` as a child process under an
 * open-file limit of 1024 (a common default; `ulimit -n`), a thousand
 * connections to the UI port each sending half a request, then a client of the
 * UI, a client of the receiver, and after the attack a reader of what was
 * stored; then a connection that never finishes its headers (slowloris). The
 * UI's bounds (ui/ui-server.ts): at most UI_MAX_CONNECTIONS open (the rest
 * closed as they arrive), headers within UI_HEADERS_TIMEOUT_MILLISECONDS.
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { UI_HEADERS_TIMEOUT_MILLISECONDS, UI_MAX_CONNECTIONS } from "../../ui/ui-server.js";
import { recordAttack } from "../support/attack-report.js";
import { halfRequest } from "../support/half-request.js";

const ragscope = fileURLToPath(new URL("../../bin/ragscope.js", import.meta.url));
const OPEN_FILES = 1024;
const ATTACK_CONNECTIONS = 1000;

/** One whole request on a connection of its own: the status line's code, or null when the server closed it without an answer. */
function request(port: number, text: string): Promise<number | null> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    let answer = "";
    socket.on("error", () => {});
    socket.on("data", (chunk: Buffer) => {
      answer += chunk.toString("latin1");
      const status = /^HTTP\/1\.1 (\d{3})/.exec(answer);
      if (status !== null) {
        socket.destroy();
        resolve(Number(status[1]));
      }
    });
    socket.on("close", () => resolve(null));
    socket.on("connect", () => socket.write(text));
  });
}

describe("a thousand idle connections to the UI port under an open-file limit of 1024", () => {
  let folder: string;
  let child: ChildProcess;
  let exited: Promise<number | null>;
  let output = "";
  let uiPort: number;
  let receiverPort: number;
  const sockets: net.Socket[] = [];
  let closedByServer = 0;

  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-ui-connections-"));
    // The limit is the shell's, exec'd into node: node raises its soft limit only up to the hard one set here.
    child = spawn("bash", ["-c", `ulimit -n ${OPEN_FILES} && exec "$0" "$@"`, process.execPath, ragscope, "serve", "--port", "0", "--metrics-port", "0", "--ui-port", "0", "--data-dir", path.join(folder, "data")], {
      env: { ...process.env, RAGSCOPE_CONFIG: "", RAGSCOPE_CLICKHOUSE_URL: "", RAGSCOPE_QUIET_PERIOD_MS: "200" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    exited = new Promise((resolve) => child.once("exit", (code) => resolve(code)));
    for (let waited = 0; !/web UI and read API on/.test(output) && child.exitCode === null && waited < 600; waited += 1) await new Promise((resolve) => setTimeout(resolve, 100));
    uiPort = Number(/web UI and read API on http:\/\/[\d.]+:(\d+)/.exec(output)?.[1]);
    receiverPort = Number(/OTLP\/HTTP on http:\/\/[\d.]+:(\d+)\/v1\/traces/.exec(output)?.[1]);
    assert.ok(uiPort > 0 && receiverPort > 0, output);
  });

  after(async () => {
    for (const socket of sockets) socket.destroy();
    if (child.exitCode === null) child.kill("SIGTERM");
    await exited;
    await rm(folder, { recursive: true, force: true });
  });

  test("the UI holds at most its bound, the receiver keeps answering, serve stays up and stores the trace", async () => {
    for (let index = 0; index < ATTACK_CONNECTIONS; index += 1) sockets.push(await halfRequest(uiPort, "/traces", () => (closedByServer += 1)));
    // The backlog is accepted in order: by the time this connection is, the thousand before it were, so the UI holds its bound.
    assert.equal(await request(uiPort, "GET /api/traces HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"), null, "a UI request past the bound is closed unanswered");
    // The closes reach this process as events; wait (bounded) for those of the connections the server refused.
    for (let waited = 0; waited < 100 && closedByServer < ATTACK_CONNECTIONS - UI_MAX_CONNECTIONS; waited += 1) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.ok(closedByServer >= ATTACK_CONNECTIONS - UI_MAX_CONNECTIONS, `the UI closed ${closedByServer} of ${ATTACK_CONNECTIONS} connections; at most ${UI_MAX_CONNECTIONS} may stay open`);

    const span = { traceId: "c0000000000000000000000000000001", spanId: "c000000000000001", name: "rag.request", kind: 1, startTimeUnixNano: String(BigInt(Date.now() - 1000) * 1_000_000n), endTimeUnixNano: String(BigInt(Date.now()) * 1_000_000n), attributes: [{ key: "ragscope.query", value: { stringValue: "still served?" } }] };
    const body = JSON.stringify({ resourceSpans: [{ resource: { attributes: [{ key: "service.name", value: { stringValue: "during-attack" } }] }, scopeSpans: [{ spans: [span] }] }] });
    assert.equal(await request(receiverPort, `POST /v1/traces HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`), 200, `the receiver answers during the attack\n${output}`);

    for (const socket of sockets) socket.destroy();
    let listed: { traces: { serviceName: string }[] } = { traces: [] };
    for (let attempt = 0; attempt < 300 && !listed.traces.some((trace) => trace.serviceName === "during-attack"); attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const answer = await fetch(`http://127.0.0.1:${uiPort}/api/traces`).catch(() => null);
      if (answer?.status === 200) listed = (await answer.json()) as typeof listed;
    }
    assert.ok(listed.traces.some((trace) => trace.serviceName === "during-attack"), `the trace sent during the attack is stored and listed\n${output.slice(-2000)}`);
    assert.equal(child.exitCode, null, `serve is still running\n${output.slice(-2000)}`);
    recordAttack({ attack: `UI: ${ATTACK_CONNECTIONS} idle connections, open-file limit ${OPEN_FILES}`, outcome: `${closedByServer} closed as they arrived; receiver 200; serve up` });
  });

  test("a connection that never ends its headers is answered 408 and closed once the headers time is over", async () => {
    // Node's own default held it 60 s, checked every 30 s: not answered within this wait.
    const waitMilliseconds = UI_HEADERS_TIMEOUT_MILLISECONDS + 15_000;
    const answered = await new Promise<string>((resolve) => {
      const socket = net.connect(uiPort, "127.0.0.1");
      let answer = "";
      const timer = setTimeout(() => {
        socket.destroy();
        resolve(`no answer within ${waitMilliseconds} ms`);
      }, waitMilliseconds);
      socket.on("error", () => {});
      socket.on("data", (chunk: Buffer) => (answer += chunk.toString("latin1")));
      socket.on("close", () => {
        clearTimeout(timer);
        resolve(answer);
      });
      socket.on("connect", () => socket.write("GET /traces HTTP/1.1\r\nHost: 127.0.0.1\r\n"));
    });
    assert.match(answered, /^HTTP\/1\.1 408/, answered);
    recordAttack({ attack: "UI: headers never finished (slowloris)", outcome: `408 and closed after ${UI_HEADERS_TIMEOUT_MILLISECONDS} ms` });
  });
});
