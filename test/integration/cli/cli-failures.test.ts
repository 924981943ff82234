/**
 * The command line as a user meets it (bin/ragscope.js as a subprocess, the
 * compiled package): every failure is one clear line and an exit code from
 * the README's table — 0 ok, 1 the check failed, 2 could not decide.
 */
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { chmod, cp, mkdir, readdir, readFile, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { openClickHouse } from "../../../store/clickhouse/clickhouse-connection.js";
import { migrationsFolder, runMigrations } from "../../../store/clickhouse/run-migrations.js";
import { plannedCaseResult, writeToFolder } from "../../support/stored-requests.js";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const ragscope = path.join(projectRoot, "bin/ragscope.js");

function run(args: string[], cwd: string, environment: Record<string, string> = {}, as: { uid?: number; gid?: number } = {}) {
  const child = spawnSync(process.execPath, [ragscope, ...args], { encoding: "utf8", cwd, env: { ...process.env, RAGSCOPE_CLICKHOUSE_URL: "", ...environment }, ...as });
  return { status: child.status, stdout: child.stdout, stderr: child.stderr };
}

/** stderr as lines, for "one line says what happened" checks. */
const linesOf = (text: string) => text.trim().split("\n").filter((line) => line !== "");

/** The lines a user reads; none may be a stack frame. */
function assertNoStack(text: string): void {
  assert.doesNotMatch(text, /^\s+at .+:\d+:\d+\)?$/m, text);
}

describe("ragscope --version and usage errors", () => {
  test("--version prints the package's version and exits 0", async () => {
    const { version } = JSON.parse(await readFile(path.join(projectRoot, "package.json"), "utf8")) as { version: string };
    const result = run(["--version"], projectRoot);
    assert.equal(result.status, 0);
    assert.equal(result.stdout.trim(), version);
  });

  test("gate without --run cannot decide: exit 2, naming the missing option", () => {
    const result = run(["gate"], projectRoot);
    assert.equal(result.status, 2);
    assert.match(result.stderr, /required option '--run <id>' not specified/);
    // A first `ragscope gate` does not know where a run id comes from.
    assert.match(result.stderr.split("\n")[0]!, /not specified; it is the run id ragscope eval and ragscope demo print \(the web UI lists the stored runs on \/runs\)$/);
  });

  test("experiment report without --id: exit 2, and where an experiment id comes from", () => {
    const result = run(["experiment", "report"], projectRoot);
    assert.equal(result.status, 2);
    assert.equal(result.stderr.split("\n")[0], "error: required option '--id <experiment>' not specified; it is the experimentId your requests carry (ragscope.experiment.id; the web UI lists the experiments on /experiments)");
  });

  test("a gate file naming a metric ragscope does not measure cannot decide: exit 2, the rule, and the names it may have meant", async () => {
    const folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-gate-names-"));
    try {
      const gates = path.join(folder, "gates.yaml");
      await writeFile(gates, ["retrieval:", '  recal_at_5: ">= 0.9"', "performance:", '  bogus_metric: ">= 1"', '  p90_latency_ms: "<= 3000"', ""].join("\n"));
      const result = run(["gate", "--run", "r1", "--gates", gates, "--data-dir", path.join(folder, "data")], projectRoot);
      assert.equal(result.status, 2, result.stdout + result.stderr);
      assert.match(result.stderr, /retrieval\.recal_at_5: no metric "recal_at_5": .* did you mean recall_at_5/);
      assert.match(result.stderr, /performance\.bogus_metric: no metric "bogus_metric"/);
      assert.doesNotMatch(result.stderr, /p90_latency_ms/, "a percentile of a stored metric is a metric");
      assertNoStack(result.stderr);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  test("a gate file's problems are all said in one run: a bad threshold, a name that is not snake_case and an unknown metric together", async () => {
    const folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-gate-problems-"));
    try {
      const gates = path.join(folder, "gates.yaml");
      await writeFile(gates, ["retrieval:", '  recall_at_5: "0.7"', "  Exact_Match: \">= 0.5\"", "generation:", '  faithfulnes: ">= 0.9"', '  answer_correctness: ">= 50%"', ""].join("\n"));
      const result = run(["gate", "--run", "r1", "--gates", gates, "--data-dir", path.join(folder, "data")], projectRoot);
      assert.equal(result.status, 2, result.stdout + result.stderr);
      assert.match(result.stderr, /retrieval\.recall_at_5: must be a threshold such as ">= 0\.9"/);
      assert.match(result.stderr, /retrieval\.Exact_Match: metric "Exact_Match": metric names are snake_case/);
      assert.match(result.stderr, /generation\.faithfulnes: no metric "faithfulnes": .*did you mean faithfulness/);
      assert.match(result.stderr, /generation\.answer_correctness: must be a threshold/);
      assertNoStack(result.stderr);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  test("a .json gate file is read as JSON: a trailing comma, which YAML would accept, is refused with its line and column", async () => {
    const folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-gate-json-"));
    try {
      const gates = path.join(folder, "gates.json");
      await writeFile(gates, '{\n  "retrieval": { "recall_at_5": ">= 0.7" },\n}\n');
      const result = run(["gate", "--run", "r1", "--gates", gates, "--data-dir", path.join(folder, "data")], projectRoot);
      assert.equal(result.status, 2, result.stdout + result.stderr);
      assert.match(result.stderr, /gates\.json: line 3 column 1: Expected double-quoted property name — the gate file is not valid JSON/);
      assertNoStack(result.stderr);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  test("a gate file with score weights and no rule would pass any run: exit 2, saying so", async () => {
    const folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-gate-no-rule-"));
    try {
      const gates = path.join(folder, "gates.yaml");
      await writeFile(gates, "score_weights: { answer_relevance: 0.25, faithfulness: 0.25, answer_correctness: 0.25, completeness: 0.15, citation_accuracy: 0.1 }\n");
      const result = run(["gate", "--run", "r1", "--gates", gates, "--data-dir", path.join(folder, "data")], projectRoot);
      assert.equal(result.status, 2, result.stdout + result.stderr);
      assert.match(result.stderr, /\(file\): the gate file declares no rule, so its gate would pass any run/);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  test("an unknown command and a bad flag value are usage errors: exit 2", () => {
    assert.equal(run(["evaluat"], projectRoot).status, 2);
    const badPort = run(["serve", "--port", "seventy"], projectRoot);
    assert.equal(badPort.status, 2);
    assert.equal(badPort.stderr.split("\n")[0], "error: option '--port <port>' argument 'seventy' is invalid. It must be a whole number from 0 to 65535 (a TCP port; 0 picks a free one) in decimal digits only (no sign, point, exponent, hex or spaces), not \"seventy\".");
    const badCount = run(["eval", "--dataset", "cases.yaml", "--task", "task.mjs", "--repeat", "0"], projectRoot);
    assert.equal(badCount.status, 2);
    assert.equal(badCount.stderr.split("\n")[0], "error: option '--repeat <n>' argument '0' is invalid. It must be at least 1 (each repetition runs every case once more and keeps its results).");
  });

  test("a misspelled required flag is the unknown option it is, with the flag meant, not the required one missing: exit 2", () => {
    for (const [args, typo, meant] of [
      [["eval", "--datset", "cases.yaml", "--task", "./task.mjs"], "--datset", "--dataset"],
      [["gate", "--rnu", "r1"], "--rnu", "--run"],
      [["experiment", "report", "--idd", "e1"], "--idd", "--id"],
    ] as const) {
      const result = run([...args], projectRoot);
      assert.equal(result.status, 2, result.stderr);
      assert.deepEqual(linesOf(result.stderr).slice(0, 2), [`error: unknown option '${typo}'`, `(Did you mean ${meant}?)`]);
    }
    // Left out altogether, a required option is still named as missing.
    const missing = run(["eval", "--task", "./task.mjs"], projectRoot);
    assert.equal(missing.status, 2);
    assert.equal(linesOf(missing.stderr)[0], "error: required option '--dataset <file>' not specified");
  });

  test("report with an unreadable time cannot decide: exit 2 with the accepted forms", async () => {
    const folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-cli-report-"));
    try {
      const result = run(["report", "--from", "yesterday-ish", "--data-dir", path.join(folder, "data")], folder);
      assert.equal(result.status, 2);
      assert.match(result.stderr, /^ragscope report: --from "yesterday-ish" is not a time; --from and --to take "now", "now-6h"/);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  test("report --from a date that does not exist is refused, not rolled over; a range after the last stored request names it", async () => {
    const folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-cli-report-range-"));
    try {
      const dataDir = path.join(folder, "data");
      const startedAtMs = Date.UTC(2026, 6, 8, 9, 30);
      await writeToFolder(dataDir, [{ caseResult: plannedCaseResult({ caseResultId: "cr_only", traceId: "c1".padStart(32, "0"), startedAtMs }), evaluationResults: [] }]);
      // 2026-02-30 was read as March 2; epoch numbers were read as years.
      for (const [value, message] of [
        ["2026-02-30", /^ragscope report: --from "2026-02-30": the date 2026-02-30 does not exist \(February 2026 has 28 days\)/],
        ["0", /^ragscope report: --from "0" is not a time; --from and --to take "now", "now-6h" \(s, m, h, d\) or an ISO 8601 date/],
      ] as const) {
        const refused = run(["report", "--from", value, "--data-dir", dataDir], folder);
        assert.equal(refused.status, 2, refused.stdout + refused.stderr);
        assert.match(refused.stderr, message);
      }
      // Without --to the range ends at the last stored request (09:31, rounded up to the minute): the message says so.
      const after = run(["report", "--from", "2026-07-08T10:00Z", "--data-dir", dataDir], folder);
      assert.equal(after.status, 2, after.stdout + after.stderr);
      assert.match(after.stderr, /^ragscope report: the time range is empty: --from must be before the last stored request \(2026-07-08T09:31:00\.000Z\), where the range ends without --to/);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});

describe("ragscope serve and a busy machine", () => {
  let folder: string;
  let occupied: Server;
  let occupiedPort: number;
  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-cli-busy-"));
    occupied = createServer();
    await new Promise<void>((resolve) => occupied.listen(0, "127.0.0.1", resolve));
    occupiedPort = (occupied.address() as AddressInfo).port;
  });
  after(async () => {
    await new Promise((resolve) => occupied.close(resolve));
    await rm(folder, { recursive: true, force: true });
  });

  test("a receiver port in use: exit 2 and one line naming the port and how to choose another", () => {
    const result = run(["serve", "--port", String(occupiedPort), "--metrics-port", "0", "--data-dir", path.join(folder, "a")], folder);
    assert.equal(result.status, 2);
    const lines = result.stderr.trim().split("\n");
    assert.equal(lines.length, 1, result.stderr);
    assert.match(lines[0]!, new RegExp(`^ragscope serve: port ${occupiedPort} on 127\\.0\\.0\\.1 is already in use.*--port N \\(or RAGSCOPE_RECEIVER_PORT\\)`));
    // The store folder this failed start created is removed again; a folder that was there before is kept, with what it holds.
    assert.equal(existsSync(path.join(folder, "a")), false, "a new store folder is removed after the failed start");
    const existing = path.join(folder, "existing-store");
    mkdirSync(existing);
    writeFileSync(path.join(existing, "kept.txt"), "mine");
    const again = run(["serve", "--port", String(occupiedPort), "--metrics-port", "0", "--data-dir", existing], folder);
    assert.equal(again.status, 2);
    assert.equal(readFileSync(path.join(existing, "kept.txt"), "utf8"), "mine", "a folder that existed is kept");
  });

  test("a host that is no address of this machine: exit 2 naming the setting and what to write, not an unexpected error", () => {
    // 10.255.255.1 is bound by no interface here: binding fails locally (EADDRNOTAVAIL), nothing is sent.
    const receiver = run(["serve", "--host", "10.255.255.1", "--port", "0", "--grpc-port", "off", "--metrics-port", "0", "--data-dir", path.join(folder, "host")], folder);
    assert.equal(receiver.status, 2);
    assert.match(receiver.stderr, /^ragscope serve: the OTLP\/HTTP receiver cannot listen on 10\.255\.255\.1: it is no address of this machine \(EADDRNOTAVAIL\); set --host H \(or RAGSCOPE_RECEIVER_HOST\) to an address of this machine — 127\.0\.0\.1 for this machine only, 0\.0\.0\.0 for every interface$/m);
    assert.doesNotMatch(receiver.stderr, /unexpected error/);
    const metrics = run(["serve", "--port", "0", "--grpc-port", "off", "--metrics-port", "0", "--data-dir", path.join(folder, "metrics-host")], folder, { RAGSCOPE_METRICS_HOST: "10.255.255.1" });
    assert.equal(metrics.status, 2);
    assert.match(metrics.stderr, /^ragscope serve: the metrics endpoint cannot listen on 10\.255\.255\.1: it is no address of this machine \(EADDRNOTAVAIL\); set RAGSCOPE_METRICS_HOST to an address/m);
  });

  test("an OTLP/gRPC port in use: exit 2 and one line naming --grpc-port, RAGSCOPE_GRPC_PORT and how to turn gRPC off", () => {
    const result = run(["serve", "--port", "0", "--grpc-port", String(occupiedPort), "--metrics-port", "0", "--data-dir", path.join(folder, "grpc")], folder);
    assert.equal(result.status, 2);
    const lines = result.stderr.trim().split("\n");
    assert.equal(lines.length, 1, result.stderr);
    assert.match(lines[0]!, new RegExp(`^ragscope serve: port ${occupiedPort} on 127\\.0\\.0\\.1 is already in use, so the OTLP/gRPC receiver cannot start.*--grpc-port N \\(or RAGSCOPE_GRPC_PORT\\).*off turns OTLP/gRPC off`));
  });

  test("an OTLP/gRPC port that is no port: exit 2 naming the flag and what it takes", () => {
    const result = run(["serve", "--port", "0", "--grpc-port", "grpc", "--metrics-port", "0", "--data-dir", path.join(folder, "grpc-word")], folder);
    assert.equal(result.status, 2);
    assert.match(result.stderr, /flag --grpc-port: must be off or a whole number from 0 to 65535 \(a TCP port; 0 picks a free one\)/);
  });

  test("a web UI port in use: exit 2, saying how to choose another", () => {
    const result = run(["serve", "--port", "0", "--grpc-port", "off", "--metrics-port", "0", "--ui-port", String(occupiedPort), "--data-dir", path.join(folder, "ui")], folder);
    assert.equal(result.status, 2);
    assert.match(result.stderr, /^ragscope serve: the web UI did not start: .*EADDRINUSE.*; another process holds that port: stop it, or give serve another --ui-port \(0 picks a free one\)/m);
  });

  test("a metrics port in use: exit 2 naming --metrics-port and RAGSCOPE_METRICS_PORT", () => {
    const result = run(["serve", "--port", "0", "--metrics-port", String(occupiedPort), "--data-dir", path.join(folder, "b")], folder);
    assert.equal(result.status, 2);
    assert.match(result.stderr, new RegExp(`port ${occupiedPort} on 127\\.0\\.0\\.1 is already in use.*--metrics-port N \\(or RAGSCOPE_METRICS_PORT\\)`));
    assertNoStack(result.stderr);
  });

  test("gate, report and eval on a data folder that a running serve holds: exit 2, naming the process and what to do (eval: run against it with --endpoint)", async () => {
    const dataDir = path.join(folder, "held");
    const serve = spawn(process.execPath, [ragscope, "serve", "--port", "0", "--metrics-port", "0", "--ui-port", "0", "--data-dir", dataDir], { cwd: folder, stdio: ["ignore", "pipe", "pipe"] });
    try {
      await new Promise<void>((resolve, reject) => {
        let output = "";
        serve.stdout.on("data", (part: Buffer) => {
          output += part.toString();
          if (output.includes("/metrics")) resolve();
        });
        serve.on("exit", (code) => reject(new Error(`serve exited early with ${code}`)));
      });
      await writeFile(path.join(folder, "answer-task.mjs"), "export default async (evalCase) => evalCase.input;\n");
      const evalArgs = ["eval", "--dataset", path.join(projectRoot, "examples/datasets/policy-regression.yaml"), "--task", path.join(folder, "answer-task.mjs")];
      for (const args of [["gate", "--run", "r1"], ["report"], evalArgs]) {
        const result = run([...args, "--data-dir", dataDir], folder);
        assert.equal(result.status, 2, `${args[0]}: ${result.stderr}`);
        const line = result.stderr.split("\n").find((text) => text.startsWith(`ragscope ${args[0]}:`));
        assert.ok(line, result.stderr);
        assert.match(line, new RegExp(`the data folder ${dataDir.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")} is held by process ${serve.pid} \\(.*serve.*\\).*kill -TERM ${serve.pid}.*--data-dir`));
        // The holder's arguments as it was given them: its folder shortened to "held" read as another folder.
        assert.ok(line.includes(`(node ragscope.js serve --port 0 --metrics-port 0 --ui-port 0 --data-dir ${dataDir})`), line);
        assertNoStack(result.stderr);
        // Found before the engine is asked (/proc/locks): the engine's own refusal line does not precede ours.
        assert.doesNotMatch(result.stderr, /Code: \d+\. DB::Exception/, `${args[0]}: ${result.stderr}`);
        // eval has a way on without stopping serve: send its cases to the running collector.
        if (args[0] === "eval") assert.match(line, /eval can run against it: --endpoint .* --read-api /);
      }
    } finally {
      serve.kill("SIGTERM");
      await new Promise((resolve) => serve.on("exit", resolve));
    }
  });
});

describe("start-up failures name the setting and the fix, in one line (exit 2)", () => {
  let folder: string;
  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-cli-start-"));
  });
  after(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  test("Kafka out of reach: the brokers, where they were set, and RAGSCOPE_KAFKA_BROKERS; none of kafkajs's retry lines; the receiver does not need ClickHouse to start", () => {
    // A ClickHouse URL that does not answer either: the receiver's health snapshots are best-effort, so Kafka is what fails.
    const result = run(["receive", "--kafka-brokers", "127.0.0.1:1", "--port", "0", "--metrics-port", "0"], folder, { RAGSCOPE_CLICKHOUSE_URL: "http://127.0.0.1:1" });
    assert.equal(result.status, 2, result.stderr);
    assert.deepEqual(linesOf(result.stderr).length, 1, result.stderr);
    assert.match(result.stderr, /^ragscope receive: cannot connect to Kafka at 127\.0\.0\.1:1 \(flag --kafka-brokers\): connect ECONNREFUSED 127\.0\.0\.1:1; .*--kafka-brokers .*RAGSCOPE_KAFKA_BROKERS/);
    assert.doesNotMatch(result.stderr, /unexpected error|"source":"kafkajs"|ClickHouse/);
  });

  test("a ClickHouse server out of reach is named as such, with --clickhouse-url and RAGSCOPE_CLICKHOUSE_URL", () => {
    const result = run(["migrate"], folder, { RAGSCOPE_CLICKHOUSE_URL: "http://127.0.0.1:1" });
    assert.equal(result.status, 2, result.stderr);
    assert.deepEqual(linesOf(result.stderr).length, 1, result.stderr);
    assert.match(result.stderr, /^ragscope migrate: cannot reach the ClickHouse server at http:\/\/127\.0\.0\.1:1 \(connect ECONNREFUSED 127\.0\.0\.1:1\); .*--clickhouse-url \(or RAGSCOPE_CLICKHOUSE_URL\)/);
  });

  test("a data folder that is a file, or lies under one: --data-dir and RAGSCOPE_DATA_DIR named", async () => {
    const file = path.join(folder, "a-file");
    await writeFile(file, "not a folder");
    for (const dataDir of [file, path.join(file, "data")]) {
      const result = run(["gate", "--run", "r1", "--data-dir", dataDir], folder);
      assert.equal(result.status, 2, result.stderr);
      assert.deepEqual(linesOf(result.stderr).length, 1, result.stderr);
      assert.match(result.stderr, new RegExp(`^ragscope gate: the data folder ${dataDir.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")} cannot be created: it, or a folder above it, is a file .*--data-dir \\(or RAGSCOPE_DATA_DIR\\)`));
    }
  });

  test("a data folder this user may not write: the permission problem, --data-dir and RAGSCOPE_DATA_DIR named, before the engine is asked", async () => {
    // root writes anywhere: the command then runs as nobody, which may read the project but not write the folder.
    const root = process.getuid?.() === 0;
    const as = root ? { uid: 65534, gid: 65534 } : {};
    if (root) await chmod(folder, 0o755);
    const readOnly = path.join(folder, "read-only");
    await mkdir(readOnly);
    await chmod(readOnly, 0o555);
    try {
      for (const dataDir of [readOnly, path.join(readOnly, "data")]) {
        const result = run(["serve", "--port", "0", "--metrics-port", "0", "--data-dir", dataDir], folder, {}, as);
        assert.equal(result.status, 2, result.stderr);
        assert.deepEqual(linesOf(result.stderr).length, 1, result.stderr);
        assert.match(result.stderr, /^ragscope serve: the data folder .*read-only.* cannot be written by this user \(EACCES: permission denied.*\); give the user running ragscope write permission on it .*--data-dir \(or RAGSCOPE_DATA_DIR\)/);
        assert.doesNotMatch(result.stderr, /DB::|Failed to create connection/);
      }
    } finally {
      await chmod(readOnly, 0o755);
    }
  });

  test("a misspelled RAGSCOPE_* variable is refused at start with the name it may have meant", () => {
    const result = run(["config"], folder, { RAGSCOPE_KAFKA_BROKER: "typo:1", RAGSCOPE_QUIET_PERIOD: "5" });
    assert.equal(result.status, 2, result.stdout + result.stderr);
    assert.match(result.stderr, /^ragscope config: the configuration is invalid$/m);
    assert.match(result.stderr, /environment variable RAGSCOPE_KAFKA_BROKER: ragscope reads no variable of that name.*did you mean RAGSCOPE_KAFKA_BROKERS\?/);
    assert.match(result.stderr, /environment variable RAGSCOPE_QUIET_PERIOD: .*did you mean RAGSCOPE_QUIET_PERIOD_MS\?/);
  });
});

describe("the gate on a store that holds no run (read only: it never creates or migrates one)", () => {
  let folder: string;
  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-gate-store-"));
  });
  after(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  test("a data folder that does not exist: exit 2, one line naming it and --data-dir, and no folder left behind", () => {
    const dataDir = path.join(folder, "typo");
    const result = run(["gate", "--run", "r1", "--data-dir", dataDir], folder);
    assert.equal(result.status, 2, result.stderr);
    assert.deepEqual(linesOf(result.stderr).length, 1, result.stderr);
    assert.match(result.stderr, /^ragscope gate: no store at .*typo: the folder does not exist, so nothing was stored there; point --data-dir \(or RAGSCOPE_DATA_DIR\)/);
    assert.equal(existsSync(dataDir), false);
  });

  test("an empty data folder: exit 2, no store there, not an engine error, and nothing written into it", async () => {
    const dataDir = path.join(folder, "empty");
    await mkdir(dataDir);
    const result = run(["gate", "--run", "r1", "--data-dir", dataDir], folder);
    assert.equal(result.status, 2, result.stderr);
    assert.deepEqual(linesOf(result.stderr).length, 1, result.stderr);
    assert.match(result.stderr, /^ragscope gate: no store at .*empty: the folder holds no ClickHouse engine data \(no metadata\/ folder\), so nothing was stored there; point --data-dir/);
    assert.deepEqual(await readdir(dataDir), [], "the engine's folders are not created in it");
    // An engine's folder without ragscope's tables (another application's, or one that never migrated).
    const engineOnly = path.join(folder, "engine-only");
    const connection = await openClickHouse({ url: null, username: "default", password: "", database: "ragscope", dataPath: engineOnly });
    await connection.close();
    const other = run(["gate", "--run", "r1", "--data-dir", engineOnly], folder);
    assert.equal(other.status, 2, other.stderr);
    assert.match(other.stderr, /^ragscope gate: no ragscope data in the embedded ClickHouse engine \(chDB\) in .*engine-only.*: it has no ragscope schema, so no run was stored there; point --data-dir/);
    assert.doesNotMatch(result.stderr, /unexpected error|Unknown table/);
  });

  test("a store an earlier release wrote: exit 2 naming the migrations it lacks and `ragscope migrate`; after the migration the gate reads it", async () => {
    const previous = path.join(folder, "previous-migrations");
    const dataDir = path.join(folder, "previous-store");
    await cp(migrationsFolder, previous, { recursive: true, filter: (source) => !/\/\d{4}_/.test(source) || Number(path.basename(source).slice(0, 4)) <= 6 });
    const connection = await openClickHouse({ url: null, username: "default", password: "", database: "ragscope", dataPath: dataDir });
    try {
      await runMigrations(connection, previous);
    } finally {
      await connection.close();
    }
    const newer = (await readdir(migrationsFolder)).filter((file) => /^\d{4}_/.test(file) && Number(file.slice(0, 4)) > 6);
    const result = run(["gate", "--run", "r1", "--data-dir", dataDir], folder);
    assert.equal(result.status, 2, result.stderr);
    assert.deepEqual(linesOf(result.stderr).length, 1, result.stderr);
    assert.match(result.stderr, new RegExp(`^ragscope gate: the embedded ClickHouse engine .* was written by an earlier release: ${newer.length} schema migrations are not applied \\(${newer[0]!.replace(/\.sql$/, "")}, .*\\); run \`ragscope migrate\` with the same settings`));

    assert.equal(run(["migrate", "--data-dir", dataDir], folder).status, 0);
    const migrated = run(["gate", "--run", "r1", "--data-dir", dataDir], folder);
    assert.equal(migrated.status, 2, migrated.stderr);
    assert.match(migrated.stderr, /run "r1" has no stored results/);
    assert.match(migrated.stderr, /^ragscope gate: run "r1" has no stored results in .*; check the run id \(ragscope eval and ragscope demo print it\) or --data-dir \(no run has stored results there\)$/m);
  });
});

describe("eval and gate name a file they cannot use, where they looked, and the fix (exit 2, before any case runs)", () => {
  let folder: string;
  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-cli-files-"));
  });
  after(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  test("a --gates file that does not exist: its absolute path, not Node's ENOENT", () => {
    const result = run(["gate", "--run", "r1", "--gates", "no-such-gates.yaml", "--data-dir", path.join(folder, "data")], folder);
    assert.equal(result.status, 2, result.stderr);
    assert.deepEqual(linesOf(result.stderr), [`ragscope gate: no-such-gates.yaml: gate file not found (looked in ${path.join(folder, "no-such-gates.yaml")}); check the path`]);
  });

  test("a --task module that does not exist: its absolute path, not the loader's module resolution", () => {
    const result = run(["eval", "--dataset", "cases.yaml", "--task", "./no-such-task.mjs", "--data-dir", path.join(folder, "data")], folder);
    assert.equal(result.status, 2, result.stderr);
    assert.deepEqual(linesOf(result.stderr), [`ragscope eval: ./no-such-task.mjs: task module not found (looked in ${path.join(folder, "no-such-task.mjs")}); check the path`]);
  });

  test("a task module Node reads as CommonJS but written with export: says to rename it to .mjs", async () => {
    await writeFile(path.join(folder, "task.cjs"), "export default async (evalCase) => evalCase.input;\n");
    const result = run(["eval", "--dataset", "cases.yaml", "--task", "./task.cjs", "--data-dir", path.join(folder, "data")], folder);
    assert.equal(result.status, 2, result.stderr);
    const line = linesOf(result.stderr).find((text) => text.startsWith("ragscope eval: ./task.cjs:"));
    assert.ok(line, result.stderr);
    assert.match(line, /cannot load the task module \(Unexpected token 'export'\); Node loaded it as CommonJS, where import and export are not allowed: rename it to task\.mjs$/);
  });

  test("a task module where ragscope is not installed: says to install it from a clone (it is not on the npm registry)", async () => {
    const project = path.join(folder, "no-ragscope-project");
    await mkdir(project, { recursive: true });
    await writeFile(path.join(project, "task.mjs"), 'import { traceGenerate } from "ragscope/instrumentation";\nexport default async () => "an answer";\n');
    const result = run(["eval", "--dataset", path.join(folder, "cases.yaml"), "--task", "./task.mjs", "--data-dir", path.join(folder, "data")], project);
    assert.equal(result.status, 2, result.stderr);
    const line = linesOf(result.stderr).find((text) => text.startsWith("ragscope eval: ./task.mjs:"));
    assert.ok(line, result.stderr);
    assert.match(line, /cannot load the task module \(Cannot find package 'ragscope' imported from [^)]*\); install ragscope where the task module is: npm install \/path\/to\/a\/ragscope\/clone \(or the tarball npm pack makes in it\)$/);
  });

  test("gate on a run id or --baseline with no stored results: the store, and the runs stored there to choose from", async () => {
    const dataDir = path.join(folder, "one-run");
    await writeFile(path.join(folder, "one-case.yaml"), ["- id: refund_speed", "  question: How fast is a refund?", "  reference_answer: Within 7 days.", ""].join("\n"));
    await writeFile(path.join(folder, "answer.mjs"), 'export default async () => "Within 7 days.";\n');
    const stored = run(["eval", "--dataset", "one-case.yaml", "--task", "./answer.mjs", "--run-id", "stored-run", "--data-dir", dataDir], folder);
    assert.ok(stored.status === 0 || stored.status === 1, stored.stdout + stored.stderr);

    const typo = run(["gate", "--run", "stored-rnu", "--data-dir", dataDir], folder);
    assert.equal(typo.status, 2, typo.stderr);
    assert.match(linesOf(typo.stderr)[0]!, /^ragscope gate: run "stored-rnu" has no stored results in embedded ClickHouse engine \(chDB\) in .*one-run.*; check the run id \(ragscope eval and ragscope demo print it\) or --data-dir \(runs stored there, newest first: stored-run\)$/);

    const baseline = run(["gate", "--run", "stored-run", "--baseline", "no-such-baseline", "--data-dir", dataDir], folder);
    assert.equal(baseline.status, 2, baseline.stderr);
    assert.deepEqual(linesOf(baseline.stderr).length, 1, baseline.stderr);
    assert.match(linesOf(baseline.stderr)[0]!, /^ragscope gate: --baseline: baseline run "no-such-baseline" has no stored results in embedded ClickHouse engine \(chDB\) in .*one-run.*; give the id of a run stored there \(runs stored there, newest first: stored-run\)$/);
  });

  test("a .js task module with import in a \"type\": \"commonjs\" package (what npm init -y writes): says to rename it or set the package type", async () => {
    const project = path.join(folder, "commonjs-project");
    await mkdir(project, { recursive: true });
    // An explicit "commonjs" type: Node then never detects ES module syntax in a .js file, on any version.
    await writeFile(path.join(project, "package.json"), JSON.stringify({ name: "my-rag-app", version: "1.0.0", type: "commonjs" }));
    await writeFile(path.join(project, "task.js"), 'import path from "node:path";\nexport default async (evalCase) => path.basename(evalCase.input);\n');
    const result = run(["eval", "--dataset", "cases.yaml", "--task", "./task.js", "--data-dir", path.join(folder, "data")], project);
    assert.equal(result.status, 2, result.stderr);
    const line = linesOf(result.stderr).find((text) => text.startsWith("ragscope eval: ./task.js:"));
    assert.ok(line, result.stderr);
    assert.match(line, /cannot load the task module \(Cannot use import statement outside a module\); Node loaded it as CommonJS, where import and export are not allowed: rename it to task\.mjs, or set "type": "module" in the nearest package\.json$/);
  });

  test("a .ts task module importing ragscope in a \"type\": \"commonjs\" package: says to rename it to .mts or set the package type", async () => {
    const project = path.join(folder, "commonjs-ts-project");
    await mkdir(path.join(project, "node_modules"), { recursive: true });
    await writeFile(path.join(project, "package.json"), JSON.stringify({ name: "my-rag-app", version: "1.0.0", type: "commonjs" }));
    // ragscope installed in the app, as npm links it.
    await symlink(projectRoot, path.join(project, "node_modules", "ragscope"), "dir");
    await writeFile(path.join(project, "task.ts"), 'import { traceGenerate } from "ragscope/instrumentation";\nexport default async () => (await traceGenerate({ model: "m" }, () => ({ text: "an answer" }))).text;\n');
    const result = run(["eval", "--dataset", "cases.yaml", "--task", "./task.ts", "--data-dir", path.join(folder, "data")], project);
    assert.equal(result.status, 2, result.stderr);
    const line = linesOf(result.stderr).find((text) => text.startsWith("ragscope eval: ./task.ts:"));
    assert.ok(line, result.stderr);
    // Node's own words (a require() cycle, or import outside a module) vary by version; the hint after them does not.
    assert.match(line, /cannot load the task module \(.*\); Node loaded it as CommonJS, where it cannot import ES modules such as ragscope: rename it to task\.mts, or set "type": "module" in the nearest package\.json$/);
  });
});
