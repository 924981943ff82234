/**
 * The Kafka roles (`receive`, `evaluate`, `collect`) as a user starts them
 * (bin/ragscope.js as a subprocess): each is held to the settings it reads —
 * its --help lists only those, the checks that relate two values refuse only
 * what the role runs (the receiver publishes, the evaluator consumes, collect
 * does both) — and a receiver reachable by anyone without a token says so.
 *
 * The brokers are 127.0.0.1:1, where nothing listens: a role whose settings
 * are accepted goes on to connect and fails there ("cannot connect to Kafka"),
 * a role whose settings are refused never gets that far ("the configuration
 * is invalid"). Both exit 2 (README, exit codes), so the line tells them apart.
 */
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const ragscope = path.join(projectRoot, "bin/ragscope.js");
const UNREACHABLE_BROKER = "127.0.0.1:1";

/** The environment without any RAGSCOPE_ variable of the machine running the tests. */
const cleanEnvironment = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("RAGSCOPE_")));

interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs ragscope to its exit, without blocking the other runs of a test (each waits out kafkajs's connection retries). */
function run(args: string[], cwd: string, environment: Record<string, string> = {}): Promise<Finished> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [ragscope, ...args], { cwd, env: { ...cleanEnvironment, ...environment }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

const help = (role: string) => spawnSync(process.execPath, [ragscope, role, "--help"], { encoding: "utf8", env: cleanEnvironment }).stdout;

const refusedAsInvalid = (role: string, result: Finished) => result.code === 2 && result.stderr.includes(`ragscope ${role}: the configuration is invalid`);
const reachedKafka = (role: string, result: Finished) => result.code === 2 && result.stderr.includes(`ragscope ${role}: cannot connect to Kafka at ${UNREACHABLE_BROKER}`);

let folder: string;
before(async () => {
  folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-role-settings-"));
});
after(async () => {
  await rm(folder, { recursive: true, force: true });
});

describe("the combination checks follow the role", () => {
  test("a stop deadline shorter than the publish deadline: receive and collect refuse it, evaluate (which never publishes) starts", async () => {
    // --stop-timeout-ms 3000 against the default publish deadline of 5000 ms (README, kafka.publishTimeoutMs): 5000 >= 3000.
    const stop = ["--kafka-brokers", UNREACHABLE_BROKER, "--stop-timeout-ms", "3000", "--metrics-port", "0"];
    const [receive, evaluate, collect] = await Promise.all([
      run(["receive", ...stop, "--port", "0"], folder),
      run(["evaluate", ...stop, "--data-dir", path.join(folder, "evaluate-chdb")], folder),
      run(["collect", ...stop, "--port", "0", "--data-dir", path.join(folder, "collect-chdb")], folder),
    ]);
    for (const [role, result] of [["receive", receive], ["collect", collect]] as const) {
      assert.ok(refusedAsInvalid(role, result), `${role}: ${result.stderr}`);
      // The stop deadline came from the flag: named so, not as the variable nobody set.
      assert.match(result.stderr, /kafka\.publishTimeoutMs.*must be shorter than the stop deadline \(3000 ms, flag --stop-timeout-ms\)/);
    }
    assert.ok(reachedKafka("evaluate", evaluate), evaluate.stderr);
    assert.doesNotMatch(evaluate.stderr, /publishTimeoutMs|configuration is invalid/);
    // The failed start removed the store folder it had created: a mistyped broker leaves no empty store behind.
    assert.equal(existsSync(path.join(folder, "evaluate-chdb")), false, "the evaluator's new store folder is removed after its failed start");
    assert.equal(existsSync(path.join(folder, "collect-chdb")), false, "collect refused its settings before opening a store");
  });

  test("a heartbeat longer than a third of the session: evaluate refuses it, receive (which joins no group) starts", async () => {
    // 20000 * 3 = 60000 > the default session of 30000 ms.
    const environment = { RAGSCOPE_KAFKA_HEARTBEAT_INTERVAL_MS: "20000" };
    const [receive, evaluate] = await Promise.all([
      run(["receive", "--kafka-brokers", UNREACHABLE_BROKER, "--port", "0", "--metrics-port", "0"], folder, environment),
      run(["evaluate", "--kafka-brokers", UNREACHABLE_BROKER, "--metrics-port", "0", "--data-dir", path.join(folder, "heartbeat-chdb")], folder, environment),
    ]);
    assert.ok(refusedAsInvalid("evaluate", evaluate), evaluate.stderr);
    assert.match(evaluate.stderr, /environment variable RAGSCOPE_KAFKA_HEARTBEAT_INTERVAL_MS: must be at most a third of the session timeout/);
    assert.ok(reachedKafka("receive", receive), receive.stderr);
    assert.doesNotMatch(receive.stderr, /heartbeat|configuration is invalid/i);
  });

  test("the session timeout a heartbeat is checked against is named where its value came from: flag, variable or default", () => {
    const config = (args: string[], environment: Record<string, string> = {}) => spawnSync(process.execPath, [ragscope, "config", "--heartbeat-interval-ms", "3000", ...args], { encoding: "utf8", cwd: folder, env: { ...cleanEnvironment, ...environment } });
    const fromFlag = config(["--session-timeout-ms", "6000"]);
    assert.equal(fromFlag.status, 2, fromFlag.stderr);
    assert.match(fromFlag.stderr, /flag --heartbeat-interval-ms: must be at most a third of the session timeout \(6000 ms, flag --session-timeout-ms\)/);
    assert.doesNotMatch(fromFlag.stderr, /RAGSCOPE_KAFKA_SESSION_TIMEOUT_MS/);
    const fromVariable = config([], { RAGSCOPE_KAFKA_SESSION_TIMEOUT_MS: "6000" });
    assert.equal(fromVariable.status, 2, fromVariable.stderr);
    assert.match(fromVariable.stderr, /the session timeout \(6000 ms, environment variable RAGSCOPE_KAFKA_SESSION_TIMEOUT_MS\)/);
    // 20000 * 3 > the default session of 30000 ms: not set, so said as the default and what sets it.
    const byDefault = config(["--heartbeat-interval-ms", "20000"]);
    assert.equal(byDefault.status, 2, byDefault.stderr);
    assert.match(byDefault.stderr, /the session timeout \(30000 ms, the default; RAGSCOPE_KAFKA_SESSION_TIMEOUT_MS sets it\)/);
  });

  test("ragscope config still checks every combination: it shows the settings of every role", () => {
    const result = spawnSync(process.execPath, [ragscope, "config", "--stop-timeout-ms", "3000"], { encoding: "utf8", cwd: folder, env: cleanEnvironment });
    assert.equal(result.status, 2, result.stderr);
    assert.match(result.stderr, /kafka\.publishTimeoutMs.*must be shorter than the stop deadline \(3000 ms/);
  });
});

describe("each role's --help lists the settings it reads", () => {
  const flagsOf = (text: string) => new Set([...text.matchAll(/^\s+(?:-\w, )?(--[a-z-]+)/gm)].map((match) => match[1]!));

  test("evaluate: the consumer's settings, not the receiver's address, publish deadline or availability probe", () => {
    const flags = flagsOf(help("evaluate"));
    for (const flag of ["--kafka-brokers", "--group-id", "--session-timeout-ms", "--heartbeat-interval-ms", "--dead-letter-topic", "--repartition-topic", "--logs-topic", "--commit-interval-ms", "--stop-timeout-ms", "--data-dir", "--max-buffered-spans"]) assert.ok(flags.has(flag), `evaluate --help lists ${flag}`);
    for (const flag of ["--publish-timeout-ms", "--probe-interval-ms", "--host", "--port"]) assert.ok(!flags.has(flag), `evaluate --help does not list ${flag}`);
  });

  test("receive: the receiver's and publisher's settings, none of the consumer group, the store or the assembler", () => {
    const flags = flagsOf(help("receive"));
    for (const flag of ["--host", "--port", "--kafka-brokers", "--topic", "--publish-timeout-ms", "--probe-interval-ms", "--stop-timeout-ms", "--clickhouse-url", "--clickhouse-user", "--clickhouse-database"]) assert.ok(flags.has(flag), `receive --help lists ${flag}`);
    for (const flag of ["--group-id", "--session-timeout-ms", "--heartbeat-interval-ms", "--dead-letter-topic", "--logs-topic", "--initial-offset", "--commit-interval-ms", "--data-dir", "--quiet-period-ms", "--max-buffered-spans", "--sink-batch"]) assert.ok(!flags.has(flag), `receive --help does not list ${flag}`);
  });

  test("collect: both", () => {
    const flags = flagsOf(help("collect"));
    for (const flag of ["--host", "--port", "--publish-timeout-ms", "--probe-interval-ms", "--group-id", "--session-timeout-ms", "--data-dir", "--stop-timeout-ms"]) assert.ok(flags.has(flag), `collect --help lists ${flag}`);
  });

  test("serve: --metrics-host like receive and evaluate, and it sets the address /metrics is checked against", () => {
    for (const role of ["serve", "receive", "evaluate"]) assert.ok(flagsOf(help(role)).has("--metrics-host"), `${role} --help lists --metrics-host`);
    // /metrics on every address and the receiver on one share port 36709: the clash names 0.0.0.0, so the flag reached the setting.
    const result = spawnSync(process.execPath, [ragscope, "serve", "--metrics-host", "0.0.0.0", "--metrics-port", "36709", "--port", "36709", "--data-dir", path.join(folder, "serve-metrics-host")], { encoding: "utf8", env: cleanEnvironment });
    assert.equal(result.status, 2, result.stderr);
    assert.match(result.stderr, /are both set to port 36709 on 127\.0\.0\.1 and 0\.0\.0\.0/);
  });

  test("a receiver-only flag given to evaluate is a usage error, exit 2", () => {
    const result = spawnSync(process.execPath, [ragscope, "evaluate", "--publish-timeout-ms", "2000"], { encoding: "utf8", env: cleanEnvironment });
    assert.equal(result.status, 2);
    assert.match(result.stderr, /unknown option '--publish-timeout-ms'/);
  });
});

describe("a receiver anyone can reach without a token says so", () => {
  const warning = /^ragscope receive: warning: the OTLP\/HTTP receiver listens on 0\.0\.0\.0, which is not a loopback address, and asks no token: .*set RAGSCOPE_AUTH_TOKENS=/m;

  test("receive --host 0.0.0.0 without RAGSCOPE_AUTH_TOKENS warns on stderr; with a token, or on loopback, it does not", async () => {
    const receive = (host: string, environment: Record<string, string> = {}) => run(["receive", "--host", host, "--port", "0", "--kafka-brokers", UNREACHABLE_BROKER, "--metrics-port", "0"], folder, environment);
    const [open, withToken, withTenantToken, loopback] = await Promise.all([
      receive("0.0.0.0"),
      receive("0.0.0.0", { RAGSCOPE_AUTH_TOKENS: "receiver-token-0123456789" }),
      receive("0.0.0.0", { RAGSCOPE_TENANT_TOKENS: `acme=${"a".repeat(64)}` }),
      receive("127.0.0.1"),
    ]);
    assert.match(open.stderr, warning);
    for (const result of [withToken, withTenantToken, loopback]) {
      assert.ok(reachedKafka("receive", result), result.stderr);
      assert.doesNotMatch(result.stderr, /warning/);
    }
  });
});
