/**
 * A wrong flag or variable value as a user meets it (bin/ragscope.js as a
 * subprocess): one line naming the flag or variable, what it must be and, for
 * a setting the user did not give, what sets it; exit 2. Each case here was a
 * message that misled or was missing: a port refused in other words than the
 * commands' own port flags, a ClickHouse URL of another scheme accepted until
 * the first query, an unknown variable's sentence run into the next, and a
 * setting left at its default named as if an environment variable had set it.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { runRagscope } from "../../support/run-ragscope.js";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const ragscope = path.join(projectRoot, "bin/ragscope.js");

function run(args: readonly string[], environment: Record<string, string> = {}) {
  // Only the variables a case sets: a RAGSCOPE_* variable of the machine running the tests would change the answers.
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("RAGSCOPE_")));
  const child = spawnSync(process.execPath, [ragscope, ...args], { encoding: "utf8", cwd: projectRoot, env: { ...inherited, ...environment } });
  return { status: child.status, stdout: child.stdout, stderr: child.stderr };
}

/** The problem lines under "the configuration is invalid". */
const problems = (stderr: string) => stderr.trim().split("\n").slice(1).map((line) => line.trim());

describe("ragscope: a wrong flag value says which flag, what it must be and what sets it", () => {
  test("a port is refused in the same words by every command, whether commander or the settings schema reads it", () => {
    const port = "a whole number from 0 to 65535 (a TCP port; 0 picks a free one) in decimal digits only (no sign, point, exponent, hex or spaces)";
    const schema = run(["config", "--port", "abc", "--metrics-port", "99999"]);
    assert.equal(schema.status, 2);
    assert.deepEqual(problems(schema.stderr).sort(), ["flag --metrics-port: must be at most 65535 (a TCP port; 0 picks a free one)", `flag --port: must be ${port}, not "abc"`]);
    const flag = run(["serve", "--port", "abc"]);
    assert.equal(flag.status, 2);
    assert.equal(flag.stderr.split("\n")[0], `error: option '--port <port>' argument 'abc' is invalid. It must be ${port}, not "abc".`);
    const grpc = run(["serve", "--grpc-port", "70000"]);
    assert.equal(grpc.status, 2);
    assert.deepEqual(problems(grpc.stderr), ["flag --grpc-port: must be at most 65535 (a TCP port; 0 picks a free one)"]);
  });

  test("a whole number written in hex, with an exponent, a point or spaces is refused, not read as the number it would make", () => {
    for (const text of ["0x10", "1e3", " 8", "8.0", ""]) {
      // Bounded: a port read as a number would start the service, which serves until stopped.
      const flag = runRagscope(["serve", "--port", text, "--data-dir", path.join(os.tmpdir(), "ragscope-unused-data-dir")], projectRoot, {}, 20_000);
      assert.equal(flag.status, 2, `serve --port ${JSON.stringify(text)}`);
      assert.match(flag.stderr, new RegExp(`^error: option '--port <port>' argument '${text.replace(".", "\\.")}' is invalid\\. It must be a whole number from 0 to 65535 .* in decimal digits only`));
      const count = run(["eval", "--dataset", "cases.yaml", "--task", "task.mjs", "--repeat", text]);
      assert.equal(count.status, 2, `eval --repeat ${JSON.stringify(text)}`);
      assert.match(count.stderr, /argument .* is invalid\. It must be a whole number from 1 to 1000 /);
      const setting = run(["config", "--sink-batch", text]);
      assert.equal(setting.status, 2, `config --sink-batch ${JSON.stringify(text)}`);
      assert.deepEqual(problems(setting.stderr), [`flag --sink-batch: must be a whole number of at least 1 in decimal digits only (no sign, point, exponent, hex or spaces), not ${JSON.stringify(text)}`]);
      const variable = run(["config"], { RAGSCOPE_RECEIVER_PORT: text === "" ? "0b11" : text });
      assert.equal(variable.status, 2, `RAGSCOPE_RECEIVER_PORT=${JSON.stringify(text)}`);
      assert.match(variable.stderr, /environment variable RAGSCOPE_RECEIVER_PORT: must be a whole number from 0 to 65535 .* in decimal digits only .*, not "/);
    }
    // The values these flags and variables always took mean what they meant.
    const plain = run(["config", "--sink-batch", "250"], { RAGSCOPE_RECEIVER_PORT: "0" });
    assert.equal(plain.status, 0, plain.stderr);
    assert.match(plain.stdout, /maxBatch: 250 # flag --sink-batch/);
    assert.match(plain.stdout, /port: 0 # environment variable RAGSCOPE_RECEIVER_PORT/);
  });

  test("a ClickHouse URL of another scheme is refused at start, not at the first query", () => {
    for (const url of ["ftp://clickhouse:8123", "clickhouse://clickhouse:9000"]) {
      const result = run(["config", "--clickhouse-url", url]);
      assert.equal(result.status, 2, result.stdout);
      assert.deepEqual(problems(result.stderr), ["flag --clickhouse-url: must be the http:// or https:// URL of ClickHouse's HTTP interface, such as http://localhost:8123"]);
    }
    assert.equal(run(["config", "--clickhouse-url", "https://clickhouse.example.com:8443"]).status, 0);
  });

  test("an unknown RAGSCOPE_* variable without a near name: its sentence ends before the fix", () => {
    const result = run(["config"], { RAGSCOPE_ZZZ_QQQ: "1" });
    assert.equal(result.status, 2);
    assert.deepEqual(problems(result.stderr), [
      'environment variable RAGSCOPE_ZZZ_QQQ: ragscope reads no variable of that name, so it would be ignored and its setting left at the default. Rename or unset it (README, "Configuration", lists the variables; `ragscope config` shows where each value came from)',
    ]);
  });

  test("a setting nobody set, in a combination that fails, reads as not set and names what sets it", () => {
    const result = run(["config"], { RAGSCOPE_JUDGE_MODEL: "a-model" });
    assert.equal(result.status, 2);
    assert.match(result.stderr, /\n {2}judgeEndpoint\.baseUrl \(not set; RAGSCOPE_JUDGE_BASE_URL sets it\): set both the judge's base URL and model/);
    assert.doesNotMatch(result.stderr, /environment variable RAGSCOPE_JUDGE_BASE_URL/, "that variable is not set");
  });
});
