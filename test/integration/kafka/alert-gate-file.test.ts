/**
 * An evaluator started as README "Online evaluation" says, with
 * RAGSCOPE_ALERT_GATE_FILE naming the project's own gate file
 * (dashboards/gates/ragscope-gates.yaml): it starts and becomes ready, and it
 * says at start which of the file's rules it does not alert on (percentiles,
 * dataset-level values no evaluator writes per trace), instead of leaving an
 * operator to wait for an alert that never comes. A gate file it cannot read
 * stops it with one line that says which setting to fix, exit 2.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, test } from "node:test";
import { ensureKafkaForTests, type KafkaForTests } from "../../support/kafka-for-tests.js";
import { uniqueTopicName, waitUntil } from "../../support/kafka-helpers.js";
import { killAllCollectorProcesses, startCollectorProcess } from "./support/collector-processes.js";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const shippedGateFile = path.join(projectRoot, "dashboards/gates/ragscope-gates.yaml");

describe("alerts from a gate file in `ragscope evaluate`", () => {
  let cluster: KafkaForTests;
  let folder: string;

  before(async () => {
    cluster = await ensureKafkaForTests();
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-alert-gate-"));
  });
  after(async () => {
    await killAllCollectorProcesses();
    await rm(folder, { recursive: true, force: true });
    await cluster.stop();
  });

  test("the project's gate file: the evaluator starts, becomes ready and names the rules left to Grafana", async () => {
    const topic = uniqueTopicName("alert-gate");
    const evaluator = await startCollectorProcess(
      "evaluator",
      "evaluate",
      ["--kafka-brokers", cluster.brokers, "--topic", topic, "--dead-letter-topic", `${topic}-dead`, "--group-id", `${topic}-group`, "--data-dir", path.join(folder, "store")],
      { RAGSCOPE_ALERT_GATE_FILE: shippedGateFile },
    );
    await waitUntil(async () => (await evaluator.ready()) || undefined, { description: "the evaluator to be ready", timeoutMs: 60_000, intervalMs: 200 });
    const notice = evaluator.output.find((line) => line.includes("left to the Grafana alert rules"));
    assert.ok(notice, evaluator.output.join("\n"));
    // The file's rules on dataset-level values (error_rate, p95_latency_ms…) are named, each with why.
    for (const id of ["performance.error_rate", "performance.p95_latency_ms", "boundary.no_answer_accuracy", "regression.overall_score_drop"]) assert.ok(notice.includes(id), `${id} in: ${notice}`);
    assert.ok(!notice.includes("boundary.permission_leak_rate"), notice);
    assert.equal(await evaluator.kill("SIGTERM"), 0);
  });

  test("a gate file that does not exist: one line naming the file and what to fix, exit 2", async () => {
    const topic = uniqueTopicName("alert-gate-missing");
    const missing = path.join(folder, "absent.yaml");
    const child = spawn(process.execPath, [path.join(projectRoot, "bin/ragscope.js"), "evaluate", "--metrics-port", "0", "--kafka-brokers", cluster.brokers, "--topic", topic, "--group-id", `${topic}-group`, "--data-dir", path.join(folder, "store-missing")], {
      cwd: projectRoot,
      env: { ...process.env, RAGSCOPE_ALERT_GATE_FILE: missing },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    assert.equal(code, 2, output);
    const line = output.split("\n").find((entry) => entry.includes(missing));
    assert.ok(line, output);
    assert.match(line, /^ragscope evaluate: online evaluation settings: alerts gate file .*absent\.yaml: gate file not found \(looked in .*absent\.yaml\); check the path; fix the gate file, or the RAGSCOPE_ALERT_\* \/ RAGSCOPE_JUDGE_\* variables/);
    assert.doesNotMatch(output, /unexpected error/);
  });
});
