/**
 * A RAGSCOPE_* environment variable ragscope does not read is an error at
 * start, naming the variable it may have meant: in Kubernetes and Compose
 * every setting is environment, and a misspelled RAGSCOPE_KAFKA_BROKER left
 * the brokers at localhost:9092 without a word. Every RAGSCOPE_* name the
 * project reads anywhere (SDK, command line, deployment files, tests,
 * benchmarks) is known, so none of them is refused.
 */
import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { isKnownVariable } from "../../../collector/wiring/config/known-variables.js";
import { resolveSettings } from "../../../collector/wiring/config/load-settings.js";
import { projectRoot } from "../../../dashboards/source/generated-files.js";

function problemsOf(environment: Record<string, string>): string[] {
  const resolved = resolveSettings({ environment });
  return resolved.ok ? [] : resolved.error;
}

describe("unknown RAGSCOPE_* environment variables", () => {
  test("a misspelled name is refused with the name it may have meant, its value not shown", () => {
    const problems = problemsOf({ RAGSCOPE_KAFKA_BROKER: "typo-host:1", RAGSCOPE_QUIET_PERIOD: "5", RAGSCOPE_CLICKHOUSE_PASSWD: "secret-value-3b1" });
    assert.equal(problems.length, 3, problems.join("\n"));
    assert.match(problems.find((line) => line.includes("RAGSCOPE_KAFKA_BROKER:"))!, /^environment variable RAGSCOPE_KAFKA_BROKER: ragscope reads no variable of that name.*did you mean RAGSCOPE_KAFKA_BROKERS\?/);
    assert.match(problems.find((line) => line.includes("RAGSCOPE_QUIET_PERIOD:"))!, /did you mean RAGSCOPE_QUIET_PERIOD_MS\?/);
    assert.match(problems.find((line) => line.includes("RAGSCOPE_CLICKHOUSE_PASSWD:"))!, /did you mean RAGSCOPE_CLICKHOUSE_PASSWORD/);
    assert.ok(!problems.join("\n").includes("secret-value-3b1"), "a value may be a secret: it is not printed");
  });

  test("a name far from every known one is refused without a guess", () => {
    const [problem] = problemsOf({ RAGSCOPE_SOMETHING_ELSE_ENTIRELY: "1" });
    assert.match(problem!, /RAGSCOPE_SOMETHING_ELSE_ENTIRELY: ragscope reads no variable of that name/);
    assert.doesNotMatch(problem!, /did you mean/);
  });

  test("the SDK's, the lineage's, the tests' and the benchmarks' variables, and other programs' variables, are accepted", () => {
    assert.deepEqual(
      problemsOf({
        RAGSCOPE_ENDPOINT: "http://127.0.0.1:4318",
        RAGSCOPE_REDACTION: "hash",
        RAGSCOPE_RUN_PROMPT_VERSION: "v3",
        RAGSCOPE_BENCH_TRACES: "10",
        RAGSCOPE_TEST_CLICKHOUSE_URL: "http://127.0.0.1:8123",
        RAGSCOPE_DEBUG: "1",
        RAGSCOPE_UI_TOKENS: "alice=token",
        KAFKA_BROKER: "not ragscope's",
      }),
      [],
    );
  });

  test("Kubernetes service links of Services named ragscope-* are not taken for typos; a misspelled _PORT setting still is", () => {
    const serviceLinks = {
      RAGSCOPE_RECEIVER_SERVICE_HOST: "10.96.0.12",
      RAGSCOPE_RECEIVER_SERVICE_PORT: "4318",
      RAGSCOPE_RECEIVER_SERVICE_PORT_OTLP_HTTP: "4318",
      RAGSCOPE_RECEIVER_PORT_4318_TCP: "tcp://10.96.0.12:4318",
      RAGSCOPE_RECEIVER_PORT_4318_TCP_PROTO: "tcp",
      RAGSCOPE_RECEIVER_PORT_4318_TCP_PORT: "4318",
      RAGSCOPE_RECEIVER_PORT_4318_TCP_ADDR: "10.96.0.12",
      RAGSCOPE_EVALUATOR_METRICS_PORT: "tcp://10.96.0.13:9464",
      RAGSCOPE_EVALUATOR_METRICS_SERVICE_HOST: "10.96.0.13",
    };
    assert.deepEqual(problemsOf(serviceLinks), []);
    const [problem] = problemsOf({ ...serviceLinks, RAGSCOPE_METRIC_PORT: "9465" });
    assert.match(problem!, /RAGSCOPE_METRIC_PORT: .*did you mean RAGSCOPE_METRICS_PORT/);
  });

  test("every RAGSCOPE_* name in the project's code, scripts, deployment files and documents is one ragscope knows", async () => {
    // Constants of the code, not variables; and the examples of a typo, of a name near none, and of a service link the tests and the README give on purpose.
    const constants = new Set(["RAGSCOPE_SCHEMA_VERSION", "RAGSCOPE_SDK_VERSION", "RAGSCOPE_TRACER_NAME"]);
    const examplesOnPurpose = new Set(["RAGSCOPE_KAFKA_BROKER", "RAGSCOPE_QUIET_PERIOD", "RAGSCOPE_RECEIVER_SERVICE_HOST", "RAGSCOPE_ZZZ_QQQ"]);
    const mayGiveExamples = (file: string) => file.startsWith(`test${path.sep}`) || file === "README.md";
    // This file and the list itself name typos and Kubernetes' service links as examples.
    const examples = new Set([path.relative(projectRoot, fileURLToPath(import.meta.url)), path.join("collector", "wiring", "config", "known-variables.ts")]);
    const skipped = new Set(["node_modules", "dist", ".git", "test-output", ".ragscope", ".kafka", ".scratch-items"]);
    const unknown = new Map<string, string>();
    const walk = async (folder: string): Promise<void> => {
      for (const entry of await readdir(folder, { withFileTypes: true })) {
        const full = path.join(folder, entry.name);
        const relative = path.relative(projectRoot, full);
        if (entry.isDirectory()) {
          if (!skipped.has(entry.name) && relative !== path.join("test", "probe-tmp")) await walk(full);
          continue;
        }
        if (!/\.(ts|js|mjs|cjs|sh|ya?ml|md|json|example)$|^run$|^Dockerfile$/.test(entry.name) || entry.name === "package-lock.json" || examples.has(relative)) continue;
        // A name ending in _ is a family written out in prose (RAGSCOPE_RUN_<FIELD>, RAGSCOPE_EMBEDDINGS_*).
        for (const [name] of (await readFile(full, "utf8")).matchAll(/RAGSCOPE_[A-Z0-9_]*[A-Z0-9]\b(?![<*])/g)) {
          if (!constants.has(name!) && !isKnownVariable(name!) && !(examplesOnPurpose.has(name!) && mayGiveExamples(relative))) unknown.set(name!, relative);
        }
      }
    };
    await walk(projectRoot);
    assert.deepEqual([...unknown].map(([name, file]) => `${name} (${file})`), []);
  });
});
