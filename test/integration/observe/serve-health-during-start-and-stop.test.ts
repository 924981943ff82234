/**
 * `ragscope serve`'s /healthz and /readyz as a Kubernetes probe meets them,
 * the built CLI as a child process, while it starts and while it stops:
 * - while the store migrates (minutes on a big store): /healthz 200, so a
 *   liveness probe does not kill the process mid-migration (it then started
 *   the migration over, again and again); /readyz 503 naming the migration.
 *   The store is a ClickHouse server (support/clickhouse-http-facade.ts) whose
 *   recording of one migration is held until the test lets it go, or whose
 *   migration lock another process holds: serve waits there, however long.
 * - while it drains after SIGTERM: /readyz 503 "draining", /healthz 200 until
 *   the process exits. An export whose body the test holds keeps the drain
 *   going until the test sends the rest; new exports meanwhile find the
 *   receiver's port closed (a refused connection, which OTLP exporters retry).
 * Every wait is a bounded poll for a state; the holds end when the test says.
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { openClickHouse, type ClickHouseConnection } from "../../../store/clickhouse/clickhouse-connection.js";
import { acquireMigrationLock } from "../../../store/clickhouse/migration-lock.js";
import { readMigrations } from "../../../store/clickhouse/run-migrations.js";
import { startClickHouseHttpFacade, type ClickHouseHttpFacade } from "../../support/clickhouse-http-facade.js";
import { reserveFreePorts } from "../../support/kafka-free-ports.js";
import { startServeWithUi } from "../../support/serve-with-ui.js";
import { eventually as waitUntil } from "../../support/eventually.js";

const eventually = (description: string, condition: () => boolean | Promise<boolean>, timeoutMs = 120_000) => waitUntil(description, condition, timeoutMs);

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const ragscope = path.join(projectRoot, "bin/ragscope.js");

type Answer = { status: number; body: string } | { refused: string };

/** One GET; a connection that is refused or reset is an answer too (what a probe sees of a closed port). */
async function get(url: string): Promise<Answer> {
  try {
    const response = await fetch(url);
    return { status: response.status, body: await response.text() };
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    return { refused: cause?.code ?? String(error) };
  }
}

function statusOf(answer: Answer): number | null {
  return "status" in answer ? answer.status : null;
}

function bodyOf(answer: Answer): string {
  return "status" in answer ? answer.body : "";
}

function describeAnswer(answer: Answer): string {
  return "refused" in answer ? `no answer (${answer.refused})` : `${answer.status} ${answer.body.trim()}`;
}

/** Polls (bounded) until `condition` holds; the state polled for is the assertion, not the time it took. */
interface ServeProcess {
  child: ChildProcess;
  exited: Promise<number | null>;
  output(): string;
}

function startServe(metricsPort: number, environment: Record<string, string>): ServeProcess {
  const child = spawn(process.execPath, [ragscope, "serve", "--port", "0", "--grpc-port", "off", "--metrics-port", String(metricsPort), "--ui-port", "0"], {
    cwd: projectRoot,
    env: { ...process.env, RAGSCOPE_CONFIG: "", RAGSCOPE_DATA_DIR: "", ...environment },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, exited, output: () => output };
}

describe("serve's health endpoints while the store migrates", { timeout: 300_000 }, () => {
  let folder: string;
  let facade: ClickHouseHttpFacade;
  let names: string[];
  /** The recording of this migration waits until `letGo` is called. */
  let heldName = "";
  let held = false;
  let letGo: () => void = () => {};
  const running: ServeProcess[] = [];
  const connections: ClickHouseConnection[] = [];

  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-health-"));
    names = (await readMigrations()).map((migration) => migration.name);
    facade = await startClickHouseHttpFacade({
      dataPath: path.join(folder, "server"),
      // The row that records the migration as applied (an insert into schema_migrations) names it.
      beforeQuery: async (sql) => {
        if (heldName === "" || !sql.includes(`"name":"${heldName}"`)) return;
        held = true;
        await new Promise<void>((resolve) => (letGo = resolve));
      },
    });
  });
  after(async () => {
    letGo();
    for (const serve of running) if (serve.child.exitCode === null) serve.child.kill("SIGKILL");
    await Promise.all(running.map((serve) => serve.exited));
    await Promise.all(connections.map((connection) => connection.close()));
    await facade?.close();
    await rm(folder, { recursive: true, force: true });
  });

  function serveOn(database: string, metricsPort: number): ServeProcess {
    const serve = startServe(metricsPort, { RAGSCOPE_CLICKHOUSE_URL: facade.url, RAGSCOPE_CLICKHOUSE_DATABASE: database });
    running.push(serve);
    return serve;
  }

  test("a migration running: /healthz 200, /readyz 503 with how many of the migrations are applied; ready once they are", async () => {
    const [metricsPort] = await reserveFreePorts(1);
    const observe = `http://127.0.0.1:${metricsPort}`;
    heldName = names[4]!;
    const serve = serveOn(`health_${randomBytes(4).toString("hex")}`, metricsPort!);
    await eventually(`serve to reach migration ${heldName}\n${serve.output()}`, () => held || serve.child.exitCode !== null);
    assert.equal(serve.child.exitCode, null, serve.output());

    // The fifth migration is under way, held: the process is alive and says why it is not ready.
    const health = await get(`${observe}/healthz`);
    assert.deepEqual(health, { status: 200, body: "ok\n" }, `/healthz during the migrations: ${describeAnswer(health)}\n${serve.output()}`);
    const readiness = await get(`${observe}/readyz`);
    assert.equal(statusOf(readiness), 503, `/readyz during the migrations: ${describeAnswer(readiness)}`);
    assert.equal(bodyOf(readiness), `start-up: store migrations running: 4 of ${names.length} applied, applying ${heldName}\n`);
    assert.doesNotMatch(serve.output(), /OTLP\/HTTP on/, "the receiver does not take spans before the store is ready");

    heldName = "";
    letGo();
    let last: Answer = { refused: "not asked yet" };
    await eventually("/readyz 200 once the migrations are done", async () => {
      last = await get(`${observe}/readyz`);
      return statusOf(last) === 200;
    }).catch((error: unknown) => assert.fail(`${String(error)}; last answer ${describeAnswer(last)}\n${serve.output()}`));
    assert.match(serve.output(), /OTLP\/HTTP on http:/);
    serve.child.kill("SIGTERM");
    assert.equal(await serve.exited, 0, serve.output());
  });

  test("another process holding the migration lock: /healthz 200, /readyz 503 naming the holder; ready once it lets go", async () => {
    const [metricsPort] = await reserveFreePorts(1);
    const observe = `http://127.0.0.1:${metricsPort}`;
    const database = `health_${randomBytes(4).toString("hex")}`;
    const holder = await openClickHouse({ url: facade.url, username: "default", password: "", database, dataPath: "/unused" });
    connections.push(holder);
    await holder.client.command({ query: `CREATE DATABASE IF NOT EXISTS ${database}` });
    // Another migrator, alive: its heartbeats keep the lock from being taken over.
    const lock = await acquireMigrationLock(holder, { onWait: () => {} });
    const serve = serveOn(database, metricsPort!);
    let last: Answer = { refused: "not asked yet" };
    await eventually("/readyz to name the lock's holder", async () => {
      last = await get(`${observe}/readyz`);
      return statusOf(last) === 200 || bodyOf(last).includes("waiting for the migration lock") || serve.child.exitCode !== null;
    }).catch((error: unknown) => assert.fail(`${String(error)}; last answer ${describeAnswer(last)}\n${serve.output()}`));
    assert.equal(serve.child.exitCode, null, serve.output());
    assert.equal(statusOf(last), 503, describeAnswer(last));
    assert.equal(bodyOf(last), `start-up: store migrations waiting for the migration lock, which ${lock.owner} holds\n`);
    const health = await get(`${observe}/healthz`);
    assert.deepEqual(health, { status: 200, body: "ok\n" }, `/healthz while waiting for the lock: ${describeAnswer(health)}`);

    await lock.release();
    await eventually("/readyz 200 once the lock was let go and the migrations ran", async () => {
      last = await get(`${observe}/readyz`);
      return statusOf(last) === 200;
    }).catch((error: unknown) => assert.fail(`${String(error)}; last answer ${describeAnswer(last)}\n${serve.output()}`));
    serve.child.kill("SIGTERM");
    assert.equal(await serve.exited, 0, serve.output());
  });
});

describe("serve's health endpoints while it drains after SIGTERM", { timeout: 180_000 }, () => {
  let folder: string;

  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-drain-"));
  });
  after(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  test("an export in flight holds the drain: /readyz 503 draining, /healthz 200, new exports refused; the held export is answered 200", async () => {
    // The receiver gives a request its whole time: only the test ends the held one.
    const serve = await startServeWithUi(path.join(folder, "data"), { RAGSCOPE_REQUEST_TIMEOUT_MS: "600000", RAGSCOPE_QUIET_PERIOD_MS: "200" });
    let socket: net.Socket | undefined;
    try {
      const observe = /\/metrics, \/healthz and \/readyz on (http:\/\/[\d.:]+)/.exec(serve.output())![1]!;
      assert.equal(statusOf(await get(`${observe}/readyz`)), 200);
      const receiver = new URL(serve.receiverUrl);
      const body = Buffer.from(JSON.stringify({ resourceSpans: [] }));
      // An exporter's request whose body has not arrived: the receiver answers "100 Continue" once it reads it.
      const connected = net.connect(Number(receiver.port), receiver.hostname);
      socket = connected;
      let answer = "";
      connected.on("data", (chunk: Buffer) => (answer += chunk.toString("utf8")));
      connected.on("error", () => {});
      await new Promise<void>((resolve) => connected.once("connect", resolve));
      connected.write(`POST /v1/traces HTTP/1.1\r\nHost: ${receiver.host}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\n\r\n`);
      await eventually("the receiver to take the held request", () => answer.includes("100 Continue"), 30_000);

      serve.child.kill("SIGTERM");
      await eventually(`serve to say it stops\n${serve.output()}`, () => /ragscope serve: stopping/.test(serve.output()), 30_000);
      const readiness = await get(`${observe}/readyz`);
      assert.equal(statusOf(readiness), 503, `/readyz while draining: ${describeAnswer(readiness)}`);
      assert.match(bodyOf(readiness), /^draining: serve stops: /);
      const health = await get(`${observe}/healthz`);
      assert.deepEqual(health, { status: 200, body: "ok\n" }, `/healthz while draining: ${describeAnswer(health)}`);
      // The receiver's port closes for new connections as the drain begins (after the web UI's): an exporter's
      // connection is then refused, which it retries; an export that came before is answered as any other.
      const lateAnswers: string[] = [];
      await eventually("the receiver to refuse new connections", async () => {
        const late = await fetch(`${serve.receiverUrl}/v1/traces`, { method: "POST", headers: { "content-type": "application/json" }, body }).then(
          (response) => `answered ${response.status}`,
          (error: unknown) => `refused (${(error as { cause?: { code?: string } }).cause?.code ?? String(error)})`,
        );
        lateAnswers.push(late);
        return late.startsWith("refused");
      }, 30_000);
      assert.deepEqual(new Set(lateAnswers), new Set([...(lateAnswers.length > 1 ? ["answered 200"] : []), "refused (ECONNREFUSED)"]), lateAnswers.join(", "));
      assert.equal(serve.child.exitCode, null, "the held export keeps serve draining");

      // Let the held export go: it is answered as any other, then serve stops and its health port with it.
      connected.write(body);
      await eventually("the held export's answer", () => /HTTP\/1\.1 200 /.test(answer), 30_000);
      assert.equal(await serve.exited, 0, serve.output());
      assert.ok("refused" in (await get(`${observe}/healthz`)), "the health port closes when the process ends");
    } finally {
      socket?.destroy();
      if (serve.child.exitCode === null) serve.child.kill("SIGKILL");
      await serve.exited;
    }
  });
});
