/**
 * Kafka going away under the production roles, as processes (bin/ragscope.js)
 * against a real broker that this file stops and starts again (one broker for
 * the whole file):
 * - `receive` answers 503 + Retry-After within the OpenTelemetry SDKs' 10 s
 *   export timeout (OTLP clients retry 503; a 500 made them drop the spans),
 *   and at once while Kafka is known to be down; an application instrumented
 *   with the SDK says the receiver answered 503 and what to do (it said "no
 *   answer within 10000 ms");
 * - /readyz of `receive` and `evaluate` turns 503, naming the failing check,
 *   and 200 again once the broker is back; the evaluator counts its consumer's
 *   crashes and says how old its lag is;
 * - each role's log says, in ragscope's words, when Kafka went away (`receive`:
 *   once, answering 503) and when it is back (`receive`: taking spans again;
 *   `evaluate`: its consumer back in its group), not only kafkajs's errors;
 * - SIGTERM with Kafka down ends each role within its stop deadline (a
 *   consumer restart kafkajs had under way kept the evaluator alive forever),
 *   and a second SIGTERM ends it at once;
 * - a receiver port in use ends `receive` and `collect` with status 2 (the
 *   connected producer kept them alive).
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { after, before, describe, test } from "node:test";
import { readSample } from "../../../collector/wiring/observe/metrics-registry.js";
import { startKafkaBroker, type KafkaBroker } from "../../support/kafka-broker.js";
import { uniqueTopicName, waitUntil } from "../../support/kafka-helpers.js";
import { killAllCollectorProcesses, startCollectorProcess, type CollectorProcess } from "./support/collector-processes.js";
import { recordTraces, requestBodies } from "./support/synthetic-traces.js";

const cli = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../bin/ragscope.js");
/** The OpenTelemetry SDKs' export timeout: a client that hears nothing by then gives up instead of retrying. */
const sdkExportTimeoutMs = 10_000;
/** The roles' stop deadline (the default of kafka.stopTimeoutMs, RAGSCOPE_KAFKA_STOP_TIMEOUT_MS) and a margin for the process to end. */
const stopDeadlineMs = 30_000 + 5_000;

interface Answer {
  status: number;
  retryAfter: string | null;
  ms: number;
  body: string;
}

async function post(receiverUrl: string, body: Uint8Array): Promise<Answer> {
  const started = Date.now();
  const response = await fetch(`${receiverUrl}/v1/traces`, { method: "POST", headers: { "content-type": "application/x-protobuf" }, body, signal: AbortSignal.timeout(60_000) });
  const text = Buffer.from(await response.arrayBuffer()).toString("latin1");
  return { status: response.status, retryAfter: response.headers.get("retry-after"), ms: Date.now() - started, body: text };
}

async function readiness(process: CollectorProcess): Promise<{ status: number; body: string }> {
  const response = await fetch(`${process.observeUrl}/readyz`, { signal: AbortSignal.timeout(10_000) });
  return { status: response.status, body: await response.text() };
}

/** Waits for the process to exit, at most `timeoutMs` (then kills it); resolves with its exit code and signal, and how long it took. */
async function exitWithin(process: CollectorProcess, timeoutMs: number, started = Date.now()): Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number | null }> {
  const { child } = process;
  if (child.exitCode !== null || child.signalCode !== null) return { code: child.exitCode, signal: child.signalCode, ms: Date.now() - started };
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      resolve({ code: null, signal: null, ms: null });
    }, Math.max(0, timeoutMs - (Date.now() - started)));
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, ms: Date.now() - started });
    });
  });
}

/** Runs a role that should not start; resolves with its exit code (null: still running after `timeoutMs`, then killed) and output. */
async function runUntilExit(args: string[], timeoutMs: number): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [cli, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      resolve({ code: null, output });
    }, timeoutMs);
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/**
 * An application instrumented with the SDK (the compiled package, as users run it) sends one request to the receiver
 * with a 3 s export timeout and flushes (or, `flush: false`, leaves the export to its shutdown): with Kafka down,
 * its stderr says why the spans were lost. `environment`: more SDK variables.
 */
async function runInstrumentedRequest(receiverUrl: string, { flush = true, environment = {} }: { flush?: boolean; environment?: Record<string, string> } = {}): Promise<{ code: number | null; output: string }> {
  const sdk = pathToFileURL(path.resolve(path.dirname(cli), "../dist/instrumentation/index.js")).href;
  const program = [
    `import { setupRagscope, traceRequest, traceRetrieve } from ${JSON.stringify(sdk)};`,
    'const ragscope = setupRagscope({ serviceName: "outage-app" });',
    'await traceRequest({ query: "q" }, () => traceRetrieve({ query: "q" }, () => [{ chunkId: "c1", text: "t", score: 1 }]));',
    flush ? "await ragscope.forceFlush().catch(() => undefined);" : "",
    "await ragscope.shutdown();",
  ].join("\n");
  const child = spawn(process.execPath, ["--input-type=module", "-e", program], {
    env: { ...process.env, RAGSCOPE_ENDPOINT: receiverUrl, OTEL_BSP_EXPORT_TIMEOUT: "3000", RAGSCOPE_EXPORT_WORKER: "false", ...environment },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  return { code, output };
}

describe("Kafka down under the production roles", () => {
  let broker: KafkaBroker;
  let brokers: string;
  let dataDirs: string[] = [];
  let bodies: Uint8Array[];
  const topic = uniqueTopicName("outage");
  let receiver: CollectorProcess;
  /** One stopped with one SIGTERM, one with two: each in a group of its own. */
  let evaluators: CollectorProcess[];

  before(async () => {
    broker = await startKafkaBroker();
    brokers = broker.brokers.join(",");
    bodies = requestBodies(await recordTraces(6), 2);
  });

  after(async () => {
    await killAllCollectorProcesses();
    await broker?.stop();
    for (const dataDir of dataDirs) await rm(dataDir, { recursive: true, force: true });
  });

  test("a receiver port in use: `receive` and `collect` say so and exit 2", async () => {
    const busy = net.createServer();
    await new Promise<void>((resolve) => busy.listen(0, "127.0.0.1", resolve));
    const port = String((busy.address() as net.AddressInfo).port);
    const dataDir = await mkdtemp(path.join(os.tmpdir(), "ragscope-outage-collect-"));
    dataDirs.push(dataDir);
    try {
      const [receive, collect] = await Promise.all([
        runUntilExit(["receive", "--kafka-brokers", brokers, "--topic", topic, "--host", "127.0.0.1", "--port", port, "--metrics-port", "0"], 60_000),
        runUntilExit(["collect", "--kafka-brokers", brokers, "--topic", topic, "--group-id", uniqueTopicName("outage-collect"), "--data-dir", dataDir, "--host", "127.0.0.1", "--port", port, "--metrics-port", "0"], 60_000),
      ]);
      for (const [name, run] of [["receive", receive], ["collect", collect]] as const) {
        assert.match(run.output, new RegExp(`port ${port} on 127\\.0\\.0\\.1 is already in use`), `${name} said why:\n${run.output}`);
        assert.equal(run.code, 2, `${name} exited 2 (null: it hung until killed):\n${run.output}`);
      }
    } finally {
      await new Promise((resolve) => busy.close(resolve));
    }
  });

  test("broker down: 503 + Retry-After within the export timeout, at once after that; /readyz 503 naming Kafka; all back after the restart", async () => {
    receiver = await startCollectorProcess("receiver", "receive", ["--kafka-brokers", brokers, "--topic", topic, "--port", "0"]);
    evaluators = [];
    for (const name of ["evaluator-1", "evaluator-2"]) {
      const dataDir = await mkdtemp(path.join(os.tmpdir(), "ragscope-outage-evaluate-"));
      dataDirs.push(dataDir);
      evaluators.push(
        await startCollectorProcess(name, "evaluate", [
          "--kafka-brokers", brokers,
          "--topic", topic,
          "--group-id", uniqueTopicName(`outage-${name}`),
          "--data-dir", dataDir,
          "--session-timeout-ms", "6000",
          "--heartbeat-interval-ms", "1000",
          "--commit-interval-ms", "500",
        ]),
      );
    }
    const receiverUrl = receiver.receiverUrl!;
    assert.equal((await post(receiverUrl, bodies[0]!)).status, 200);
    for (const role of [receiver, ...evaluators]) await waitUntil(async () => (await readiness(role)).status === 200, { description: `${role.name} ready`, timeoutMs: 30_000, intervalMs: 200 });

    await broker.stopProcess();
    // The first request after the outage began: kafkajs's retries take ~15-20 s; the client must hear 503 well before its timeout.
    const first = await post(receiverUrl, bodies[1]!);
    assert.equal(first.status, 503, `503, which OTLP clients retry (500 made the SDK drop the spans): ${first.body}`);
    assert.ok(first.retryAfter !== null && Number(first.retryAfter) >= 1, `Retry-After: ${first.retryAfter}`);
    assert.ok(first.ms < sdkExportTimeoutMs - 3_000, `answered in ${first.ms} ms, inside the SDK's 10 s export timeout`);
    // Kafka is now known to be down: the next request is refused at once, without waiting for kafkajs.
    const next = await post(receiverUrl, bodies[1]!);
    assert.equal(next.status, 503, next.body);
    assert.ok(next.retryAfter !== null);
    assert.ok(next.ms < 1_000, `refused in ${next.ms} ms`);
    assert.match(next.body, /Kafka unreachable/);
    // The receiver says in its own words what it does about the outage, once, not a line per refused request
    // (before, its log held only kafkajs's connection errors).
    const saidUnreachable = () => receiver.output.filter((line) => /ragscope receive: Kafka unreachable \(.+\): answering OTLP requests with 503 and Retry-After/.test(line));
    await waitUntil(() => saidUnreachable().length > 0, { description: "receive says Kafka is unreachable and it answers 503", timeoutMs: 5_000, intervalMs: 50 });
    // What an application instrumented with the SDK hears meanwhile: the receiver's 503 and what to do, not a silence.
    const application = await runInstrumentedRequest(receiverUrl);
    assert.equal(application.code, 0, application.output);
    // (The receiver's own message may say its metadata request to Kafka got no answer: that is not the SDK's verdict.)
    assert.doesNotMatch(application.output, /failed \(no answer within/, "the receiver answered every attempt: it was not silent");
    assert.match(application.output, /export of \d+ spans to .*\/v1\/traces failed \(the collector answered HTTP 503 \(trace bus unavailable: .*Kafka unreachable.*\)/);
    assert.match(application.output, /its Kafka is unreachable\): check its \/readyz and its log; .*raise (it|OTEL_BSP_EXPORT_TIMEOUT)/);
    // At shutdown, with the export worker: the deadline ends the retries, and the loss still says what the receiver answered.
    const stopping = await runInstrumentedRequest(receiverUrl, { flush: false, environment: { OTEL_BSP_EXPORT_TIMEOUT: "60000", RAGSCOPE_SHUTDOWN_TIMEOUT_MS: "5000", RAGSCOPE_EXPORT_WORKER: "true" } });
    assert.equal(stopping.code, 0, stopping.output);
    // The application runs as `node --input-type=module -e …`: a worker that inherited that flag failed to start.
    assert.doesNotMatch(stopping.output, /export worker stopped/);
    assert.match(stopping.output, /at shutdown \d+ spans could not be exported to .* \(shutdown did not finish within 5000 ms, RAGSCOPE_SHUTDOWN_TIMEOUT_MS; until then the collector answered HTTP 503 \(trace bus unavailable: .*Kafka unreachable/);

    const unready = await waitUntil(
      async () => {
        const [receiving, evaluating] = await Promise.all([readiness(receiver), readiness(evaluators[0]!)]);
        return receiving.status === 503 && evaluating.status === 503 && { receiving, evaluating };
      },
      { description: "/readyz 503 on both roles while the broker is down", timeoutMs: 45_000, intervalMs: 500 },
    );
    assert.match(unready.receiving.body, /kafka producer: .*Kafka unreachable/);
    assert.match(unready.evaluating.body, /kafka consumer: not a member of group .*crashed/);
    const metrics = await evaluators[0]!.metrics();
    assert.ok((readSample(metrics, "ragscope_kafka_consumer_crashes_total") ?? 0) >= 1, "the crash is counted");
    const staleLag = readSample(metrics, "ragscope_kafka_consumer_lag_age_seconds");
    assert.ok(staleLag !== null && staleLag >= 5, `the lag is said to be old while it cannot be read: ${staleLag} s`);

    await broker.startProcess();
    await waitUntil(
      async () => {
        const answers = await Promise.all([receiver, ...evaluators].map(readiness));
        return answers.every((answer) => answer.status === 200);
      },
      { description: "/readyz 200 again on every role after the broker restarted", timeoutMs: 60_000, intervalMs: 500 },
    );
    const accepted = await post(receiverUrl, bodies[2]!);
    assert.equal(accepted.status, 200, accepted.body);
    assert.equal(saidUnreachable().length, 1, `one line for the outage, however many requests were refused:\n${saidUnreachable().join("\n")}`);
    // The end of the outage is said too: a log whose last word is "unreachable" or "crashed" reads as still down.
    await waitUntil(() => receiver.output.some((line) => /ragscope receive: Kafka answers again after \d+ s unreachable: taking spans again/.test(line)), { description: "receive says Kafka answers again", timeoutMs: 5_000, intervalMs: 50 });
    // evaluator-1 was seen crashed above (its /readyz).
    await waitUntil(() => evaluators[0]!.output.some((line) => /ragscope evaluate: Kafka consumer back in group \S+ after its crash \(.+\); reading again/.test(line)), { description: "evaluator-1 says its consumer is back in its group", timeoutMs: 5_000, intervalMs: 50 });
    await waitUntil(async () => {
      const age = readSample(await evaluators[0]!.metrics(), "ragscope_kafka_consumer_lag_age_seconds");
      return age !== null && age < 3;
    }, { description: "the lag read from the broker again", timeoutMs: 20_000, intervalMs: 500 });
  });

  test("SIGTERM with the broker down: each role exits within its stop deadline; a second SIGTERM ends the evaluator at once", async () => {
    assert.ok(receiver !== undefined && evaluators?.length === 2, "the roles of the previous test run");
    await broker.stopProcess();
    // Let the consumers notice (their restarts under way are what kept a stopped evaluator alive).
    await waitUntil(async () => (await readiness(evaluators[0]!)).status === 503 && (await readiness(evaluators[1]!)).status === 503, { description: "the evaluators unready", timeoutMs: 45_000, intervalMs: 500 });

    const started = Date.now();
    receiver.child.kill("SIGTERM");
    evaluators[0]!.child.kill("SIGTERM");
    evaluators[1]!.child.kill("SIGTERM");
    await waitUntil(() => evaluators[1]!.output.some((line) => /stopping/.test(line)) || evaluators[1]!.exited(), { description: "evaluator-2 stopping", timeoutMs: 10_000, intervalMs: 20 });
    const secondSignalAt = Date.now();
    evaluators[1]!.child.kill("SIGTERM");
    const [receiving, once, twice] = await Promise.all([exitWithin(receiver, stopDeadlineMs, started), exitWithin(evaluators[0]!, stopDeadlineMs, started), exitWithin(evaluators[1]!, stopDeadlineMs, secondSignalAt)]);

    const tail = (role: CollectorProcess) => role.output.filter((line) => !line.includes('"source":"kafkajs"')).slice(-8).join("\n");
    assert.ok(receiving.ms !== null, `receive exited within ${stopDeadlineMs} ms of SIGTERM:\n${tail(receiver)}`);
    assert.equal(receiving.code, 0, tail(receiver));
    assert.ok(once.ms !== null, `evaluate exited within ${stopDeadlineMs} ms of SIGTERM (it hung with Kafka down):\n${tail(evaluators[0]!)}`);
    // It stopped by itself (the deadline is a backstop, test/unit/collector/collector-process-stop.test.ts): 0 when
    // nothing was left to commit, 2 when the last commit could not be made, said on a line.
    assert.doesNotMatch(tail(evaluators[0]!), /did not stop within/);
    assert.ok(once.code === 0 || once.code === 2, `exit code ${once.code}:\n${tail(evaluators[0]!)}`);
    if (once.code === 2) assert.match(tail(evaluators[0]!), /the last offset commit failed/);
    assert.ok(twice.ms !== null && twice.ms < 3_000, `a second SIGTERM ended the evaluator at once (${twice.ms} ms):\n${tail(evaluators[1]!)}`);
    // Ended by SIGTERM's default action (no exit handlers: the embedded engine's crashed the process on exit), after
    // saying so; or, had its stop already finished, with the stop's status.
    if (twice.code === null) {
      assert.equal(twice.signal, "SIGTERM", tail(evaluators[1]!));
      assert.match(tail(evaluators[1]!), /a signal came while stopping.*exiting without committing/);
    } else assert.ok(twice.code === 0 || twice.code === 2, `exit code ${twice.code}:\n${tail(evaluators[1]!)}`);
  });
});
