/**
 * Hostile and malformed requests to the metrics port (`/metrics`, `/healthz`,
 * `/readyz`; collector/wiring/observe/observe-server.ts), over TCP to the
 * server as `ragscope serve` and the Kafka roles start it, on 127.0.0.1.
 *
 * - Connections past its bound (64, SECURITY.md "Limits") are closed as they
 *   arrive: with Node's defaults 2,000 idle connections were all held, the
 *   process's open files with them.
 * - A connection that sends its headers a byte at a time, or nothing, is
 *   answered 408 and closed once the headers time is over (shortened here, so
 *   no wait depends on the 10 s default; Node's own default held it ~86 s).
 * - A method the path does not take is 405 naming the ones it does (`Allow`);
 *   a path it does not have is 404, whatever the method.
 */
import assert from "node:assert/strict";
import net from "node:net";
import { after, before, describe, test } from "node:test";
import { MetricsRegistry } from "../../collector/wiring/observe/metrics-registry.js";
import { startObserveServer, type ObserveServer } from "../../collector/wiring/observe/observe-server.js";
import { recordAttack } from "../support/attack-report.js";
import { halfRequest } from "../support/half-request.js";

/** The bound documented in SECURITY.md, "Limits". */
const METRICS_MAX_CONNECTIONS = 64;
const ATTACK_CONNECTIONS = 200;
/** The headers time of the server started with short bounds. */
const SHORT_HEADERS_TIMEOUT_MILLISECONDS = 500;
/** Generous, so that a loaded machine cannot fail the test; far under the ~60–90 s Node's defaults held a connection. */
const WAIT_MILLISECONDS = 15_000;

interface RawAnswer {
  /** What the server sent before it closed the connection, or before the wait ran out. */
  text: string;
  closedByServer: boolean;
}

/**
 * Writes `chunks` on a connection of its own, `gapMilliseconds` apart, until the server closes it or the wait is
 * over; the connection is closed by this side only then.
 */
function rawExchange(port: number, chunks: readonly string[], gapMilliseconds = 0): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    let text = "";
    let next = 0;
    let writer: NodeJS.Timeout | undefined;
    const finish = (closedByServer: boolean) => {
      clearTimeout(waited);
      clearInterval(writer);
      socket.destroy();
      resolve({ text, closedByServer });
    };
    const waited = setTimeout(() => finish(false), WAIT_MILLISECONDS);
    socket.on("error", () => {});
    socket.on("data", (chunk: Buffer) => (text += chunk.toString("latin1")));
    socket.on("close", () => finish(true));
    socket.on("connect", () => {
      if (gapMilliseconds === 0) {
        for (const chunk of chunks) socket.write(chunk);
        return;
      }
      writer = setInterval(() => {
        if (next < chunks.length && !socket.destroyed) socket.write(chunks[next++]!);
      }, gapMilliseconds);
    });
  });
}

/** One whole request with the given method and path; the status line and headers of the answer. */
async function request(port: number, method: string, path: string): Promise<{ status: number; allow: string | null; text: string }> {
  const answer = await rawExchange(port, [`${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`]);
  const status = /^HTTP\/1\.1 (\d{3})/.exec(answer.text);
  const allow = /\r\nallow: ([^\r]*)\r\n/i.exec(answer.text);
  return { status: status === null ? 0 : Number(status[1]), allow: allow === null ? null : allow[1]!, text: answer.text };
}

describe("the metrics port's connections and methods", () => {
  let server: ObserveServer;
  let short: ObserveServer;

  before(async () => {
    const registry = new MetricsRegistry();
    registry.counter("ragscope_test_total", "a counter the test reads", () => 1);
    // As `ragscope serve` starts it: its default bounds.
    server = await startObserveServer({ host: "127.0.0.1", port: 0, registry, readiness: [] });
    // Bounds shortened so the timeouts are seen within seconds.
    short = await startObserveServer({ host: "127.0.0.1", port: 0, registry, readiness: [], connectionBounds: { maxConnections: 8, headersTimeoutMs: SHORT_HEADERS_TIMEOUT_MILLISECONDS, requestTimeoutMs: 1_000 } });
  });

  after(async () => {
    await server.close();
    await short.close();
  });

  test("connections past the bound are closed as they arrive, and the port answers again once they are gone", async () => {
    const sockets: net.Socket[] = [];
    let closedByServer = 0;
    let closedAsTheyArrived = 0;
    try {
      for (let index = 0; index < ATTACK_CONNECTIONS; index += 1) sockets.push(await halfRequest(server.port, "/metrics", () => (closedByServer += 1)));
      // The closes reach this process as events; wait (bounded) for those of the connections the server refused.
      for (let waited = 0; waited < WAIT_MILLISECONDS / 50 && closedByServer < ATTACK_CONNECTIONS - METRICS_MAX_CONNECTIONS; waited += 1) await new Promise((resolve) => setTimeout(resolve, 50));
      closedAsTheyArrived = closedByServer;
      assert.ok(closedByServer >= ATTACK_CONNECTIONS - METRICS_MAX_CONNECTIONS, `the metrics port closed ${closedByServer} of ${ATTACK_CONNECTIONS} connections; at most ${METRICS_MAX_CONNECTIONS} may stay open`);
      const past = await request(server.port, "GET", "/healthz");
      assert.equal(past.status, 0, `a request past the bound is closed unanswered: ${past.text}`);
    } finally {
      for (const socket of sockets) socket.destroy();
    }
    let healthz = 0;
    for (let attempt = 0; attempt < 100 && healthz !== 200; attempt += 1) {
      healthz = (await request(server.port, "GET", "/healthz")).status;
      if (healthz !== 200) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal(healthz, 200, "once the attack's connections are closed, /healthz answers");
    recordAttack({ attack: `metrics port: ${ATTACK_CONNECTIONS} idle connections`, outcome: `${closedAsTheyArrived} closed as they arrived; /healthz 200 after` });
  });

  test("headers sent a byte at a time are answered 408 and the connection closed once the headers time is over", async () => {
    const slow = [..."GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: " + "a".repeat(400)];
    const answer = await rawExchange(short.port, slow, 20);
    assert.ok(answer.closedByServer, `the server closed the connection within ${WAIT_MILLISECONDS} ms (headers time ${SHORT_HEADERS_TIMEOUT_MILLISECONDS} ms)`);
    assert.match(answer.text, /^HTTP\/1\.1 408/, answer.text);
    recordAttack({ attack: "metrics port: headers a byte at a time (slowloris)", outcome: "408 and closed after the headers time" });
  });

  test("a connection that sends nothing is closed once the headers time is over", async () => {
    const answer = await rawExchange(short.port, []);
    assert.ok(answer.closedByServer, `the server closed the idle connection within ${WAIT_MILLISECONDS} ms (headers time ${SHORT_HEADERS_TIMEOUT_MILLISECONDS} ms)`);
  });

  test("a method a path does not take is 405 with Allow; a path it does not have is 404 whatever the method", async () => {
    for (const [method, path] of [["POST", "/metrics"], ["PUT", "/healthz"], ["DELETE", "/readyz"], ["OPTIONS", "/metrics"]] as const) {
      const answer = await request(server.port, method, path);
      assert.equal(answer.status, 405, `${method} ${path}: ${answer.text}`);
      assert.equal(answer.allow, "GET, HEAD", `${method} ${path} names the methods it takes`);
    }
    for (const [method, path] of [["POST", "/nope"], ["GET", "/nope"], ["DELETE", "/"]] as const) {
      const answer = await request(server.port, method, path);
      assert.equal(answer.status, 404, `${method} ${path}: ${answer.text}`);
      assert.equal(answer.allow, null, `${method} ${path}: no Allow on a path that does not exist`);
    }
    for (const method of ["GET", "HEAD"]) assert.equal((await request(server.port, method, "/healthz")).status, 200, `${method} /healthz`);
    assert.match((await request(server.port, "GET", "/metrics")).text, /ragscope_test_total 1/);
  });
});
