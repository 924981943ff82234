/**
 * Values a command would accept and then fail on in a way that misleads, refused before anything runs, as a user
 * meets it (bin/ragscope.js as a subprocess): exit 2 (1 for `validate`'s verdict), one line saying which value and
 * why. Each case was reproduced from the outside before the change:
 * - a duration above Node's longest timer delay: `eval --timeout-ms 3000000000` timed every case out after 1 ms
 *   (setTimeout's overflow), and the run was blocked on timeouts that never happened;
 * - `--repeat 1000000000` ran out of memory after a minute (a V8 crash dump), and `dead-letters --limit` past 2^53
 *   was an "unexpected error";
 * - a run id or a case id the collector refuses on spans (a space, a quote): the cases ran, none of their results was
 *   stored under the id, and `eval` waited out its evaluation timeout and blamed it; `demo` even exited 0;
 * - `gate --baseline` naming `--run` itself passed every regression rule on nothing;
 * - `gate --tenant "a b"` (and report's, experiment report's) read the run as not stored, a tenant id no data can have;
 * - `experiment report --alpha 1e-2` (or .05, 0x0, "") was read by `Number`, a form no flag documents.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const ragscope = path.join(projectRoot, "bin/ragscope.js");
const dataset = path.join(projectRoot, "examples/datasets/policy-regression.yaml");

function run(args: readonly string[], cwd = projectRoot) {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("RAGSCOPE_")));
  const child = spawnSync(process.execPath, [ragscope, ...args], { encoding: "utf8", cwd, env: inherited, timeout: 60_000 });
  return { status: child.status, stdout: child.stdout, stderr: child.stderr };
}

describe("ragscope: values refused before anything runs", () => {
  let folder: string;
  let task: string;
  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-refused-up-front-"));
    task = path.join(folder, "task.mjs");
    await writeFile(task, "export default async () => 'an answer';\n");
  });
  after(() => rm(folder, { recursive: true, force: true }));

  test("a duration past Node's longest timer delay, by flag or by setting", () => {
    const flag = run(["eval", "--dataset", dataset, "--task", task, "--timeout-ms", "3000000000"]);
    assert.equal(flag.status, 2);
    assert.match(flag.stderr, /option '--timeout-ms <ms>' argument '3000000000' is invalid\. It must be at most 2147483647 \(~24\.8 days, the longest delay Node's timers take\)/);
    assert.equal(run(["demo", "--timeout-ms", "2147483648"]).status, 2);
    const setting = run(["config", "--quiet-period-ms", "3000000000"]);
    assert.equal(setting.status, 2);
    assert.match(setting.stderr, /flag --quiet-period-ms: must be at most 2147483647 \(~24\.8 days, the longest delay Node's timers take; a longer one would fire at once\)/);
    assert.equal(run(["config", "--quiet-period-ms", "2147483647"]).status, 0, "the longest delay itself is taken");
  });

  test("a count past its bound, or past the whole numbers JavaScript holds, is a usage error, not a crash", () => {
    const repeat = run(["eval", "--dataset", dataset, "--task", task, "--repeat", "1000000000"]);
    assert.equal(repeat.status, 2);
    assert.match(repeat.stderr, /'--repeat <n>' argument '1000000000' is invalid\. It must be at most 1000/);
    const limit = run(["dead-letters", "--data-dir", path.join(folder, "none"), "--limit", "99999999999999999999"]);
    assert.equal(limit.status, 2);
    assert.match(limit.stderr, /'--limit <n>' argument '99999999999999999999' is invalid\. It must be a whole number from 1 to 100000 .* in decimal digits only/);
    assert.doesNotMatch(limit.stderr, /unexpected error/);
  });

  test("eval and demo refuse a run id the collector would refuse on spans, before any case runs", async () => {
    const data = path.join(folder, "eval-data");
    const evaluated = run(["eval", "--dataset", dataset, "--task", task, "--run-id", "nightly run", "--data-dir", data]);
    assert.equal(evaluated.status, 2, evaluated.stderr);
    assert.match(evaluated.stderr, /--run-id "nightly run": holds characters outside letters, digits and _ - \. : \/ @ \+; the run id is sent on every span of the run/);
    await assert.rejects(readdir(data), "no store was made: nothing ran");
    const demo = run(["demo", "--run-id", "it's", "--data-dir", path.join(folder, "demo-data")]);
    assert.equal(demo.status, 2, demo.stdout);
    assert.match(demo.stderr, /^ragscope demo: run id "it's": holds characters outside letters, digits/);
  });

  test("validate refuses a case id or dataset id the collector would refuse on spans, naming the field", async () => {
    const file = path.join(folder, "cases.yaml");
    await writeFile(
      file,
      [
        "- { case_id: \"refund speed's\", case_version: '1', dataset_id: refunds, dataset_version: v1, input: how fast are refunds?, reference_answer: 14 days }",
        `- { case_id: ok-1, case_version: '1', dataset_id: '${"d".repeat(200)}', dataset_version: v1, input: q, reference_answer: a }`,
        "- { case_id: ok-2, case_version: '1', dataset_id: refunds, dataset_version: v1, input: q, reference_answer: a }",
      ].join("\n"),
    );
    const result = run(["validate", file]);
    assert.equal(result.status, 1, result.stdout);
    const output = `${result.stdout}${result.stderr}`;
    assert.match(output, /line 1, \[0\]\.case_id \(case_id refund speed's\): holds characters outside letters, digits and _ - \. : \/ @ \+: the id is sent on the case's spans, and the collector refuses such an id there/);
    assert.match(output, /line 2, \[1\]\.dataset_id \(case_id ok-1\): longer than 128 characters \(200\)/);
    assert.doesNotMatch(output, /ok-2/, "the good case is not named");
  });

  test("a gate rule whose threshold its metric can never meet, or always meets, is refused with the metric's range; p1 to p100 are percentiles", async () => {
    const file = path.join(folder, "gates.yaml");
    await writeFile(file, ['retrieval:', '  recall_at_5: ">= 1.5"', '  mrr: ">= -0.5"', '  p100_mrr: ">= 0.2"', '  p0_mrr: ">= 0.2"', 'performance:', '  p95_latency_ms: "<= -1"', '  average_latency_ms: "<= 5000"'].join("\n"));
    const result = run(["gate", "--run", "r1", "--gates", file, "--data-dir", path.join(folder, "none")]);
    assert.equal(result.status, 2, result.stdout);
    const lines = result.stderr.trim().split("\n");
    assert.ok(lines.some((line) => line.endsWith(`${file}: retrieval.recall_at_5: ">= 1.5" can never be met: recall_at_5 takes values from 0 to 1, so the rule would block every run; check the number (0.95 rather than 1.5, a sign)`)), result.stderr);
    assert.ok(lines.some((line) => line.includes(`retrieval.mrr: ">= -0.5" is met by every value: mrr takes values from 0 to 1, so the rule would pass whatever the run measured`)), result.stderr);
    assert.ok(lines.some((line) => line.includes(`performance.p95_latency_ms: "<= -1" can never be met: latency_ms takes values from 0 up`)), result.stderr);
    assert.ok(lines.some((line) => line.includes(`retrieval.p0_mrr: no metric "p0_mrr"`)), "p0 is no percentile: refused with the file, not measured as N/A");
    assert.ok(!lines.some((line) => line.includes("p100_mrr") || line.includes("average_latency_ms")), "p100 is the largest value, and a bound inside the range is kept");
  });

  test("read-only commands neither create a missing --data-dir nor write into a folder that holds no store", async () => {
    const missing = path.join(folder, "no-such", "deeper");
    const experiment = run(["experiment", "report", "--id", "x", "--data-dir", missing]);
    assert.equal(experiment.status, 2, experiment.stdout);
    assert.match(experiment.stderr, /^ragscope experiment report: no store at .*: the folder does not exist/);
    await assert.rejects(readdir(path.join(folder, "no-such")), "nothing created");
    const empty = path.join(folder, "not-a-store");
    await mkdir(empty);
    for (const command of [["gate", "--run", "x"], ["report"], ["dead-letters"], ["experiment", "report", "--id", "x"]]) {
      const result = run([...command, "--data-dir", empty]);
      assert.equal(result.status, 2, `${command[0]}: ${result.stdout}`);
      assert.match(result.stderr, /no store at .*: the folder holds no ClickHouse engine data \(no metadata\/ folder\)/, command.join(" "));
      assert.deepEqual(await readdir(empty), [], `${command.join(" ")} wrote nothing into it`);
    }
  });

  test("eval refuses --read-api without --endpoint, which it used to ignore", () => {
    const result = run(["eval", "--dataset", dataset, "--task", task, "--read-api", "http://127.0.0.1:9", "--data-dir", path.join(folder, "read-api")]);
    assert.equal(result.status, 2, result.stdout);
    assert.match(result.stderr, /--read-api needs --endpoint: the running collector's OTLP\/HTTP receiver/);
  });

  test("experiment report takes --alpha, --power and --mde in plain decimal between 0 and 1: 1e-2, 0x0, .05 and \"\" are refused naming the flag", () => {
    const none = path.join(folder, "none");
    for (const value of ["1e-2", "0x0", ".05", "+0.5", "Infinity", ""]) {
      for (const flag of ["--alpha", "--power", "--mde"]) {
        const result = run(["experiment", "report", "--id", "x", "--data-dir", none, flag, value]);
        assert.equal(result.status, 2, `${flag} ${value}: ${result.stdout}`);
        assert.equal(result.stderr, `ragscope experiment report: ${flag} takes a number between 0 and 1 (exclusive) in digits with an optional leading minus and fraction, e.g. 0.5 (no exponent, hex, + or Infinity), got "${value}"\n`, `${flag} ${value}`);
      }
    }
    // The plain forms pass the check and reach the store, which this folder does not hold.
    const plain = run(["experiment", "report", "--id", "x", "--data-dir", none, "--alpha", "0.01", "--power", "0.9", "--mde", "0.25"]);
    assert.equal(plain.status, 2);
    assert.match(plain.stderr, /^ragscope experiment report: no store at .*: the folder does not exist/);
  });

  test("gate, report and experiment report refuse a --tenant the collector would never store, by the rule eval --tenant uses", () => {
    const none = path.join(folder, "none");
    const commands = [["gate", "--run", "r1"], ["report", "--out", path.join(folder, "report.html")], ["experiment", "report", "--id", "x"]];
    const refused: [tenant: string, problem: string][] = [
      ["a b", "holds characters outside letters, digits and _ - . : / @ +"],
      ["acme'; --", "holds characters outside letters, digits and _ - . : / @ +"],
      ["", "empty"],
      ["t".repeat(129), "longer than 128 characters (129)"],
    ];
    for (const command of commands) {
      for (const [tenant, problem] of refused) {
        // Refused as the second of two --tenant flags too: each value is checked.
        const result = run([...command, "--data-dir", none, "--tenant", "acme", "--tenant", tenant]);
        assert.equal(result.status, 2, `${command.join(" ")} --tenant ${JSON.stringify(tenant)}: ${result.stdout}`);
        assert.ok(result.stderr.startsWith(`error: option '--tenant <id>' argument '${tenant}' is invalid. It is no tenant id the collector stores, so no data could match it: ${problem}.\n`), `${command.join(" ")}: ${result.stderr}`);
      }
      // A tenant id the collector stores (letters of any script, / and @ included) passes and reaches the store.
      const taken = run([...command, "--data-dir", none, "--tenant", "acme/eu@prod", "--tenant", "société"]);
      assert.equal(taken.status, 2);
      assert.match(taken.stderr, /no store at .*: the folder does not exist/, command.join(" "));
    }
  });

  test("report's --service, --dataset and --run refuse a value the collector never stores, as --tenant does", () => {
    const none = path.join(folder, "no-store-filters");
    for (const [flag, what] of [["--service", "service name"], ["--dataset", "dataset id"], ["--run", "run id"]] as const) {
      const result = run(["report", "--out", path.join(folder, "report.html"), "--data-dir", none, flag, "checkout", flag, "checkout api"]);
      assert.equal(result.status, 2, `${flag}: ${result.stdout}`);
      assert.ok(result.stderr.startsWith(`error: option '${flag} <${flag === "--service" ? "name" : "id"}>' argument 'checkout api' is invalid. It is no ${what} the collector stores, so no data could match it: holds characters outside letters, digits and _ - . : / @ +.\n`), `${flag}: ${result.stderr}`);
      const taken = run(["report", "--out", path.join(folder, "report.html"), "--data-dir", none, flag, "checkout/eu@v2"]);
      assert.equal(taken.status, 2);
      assert.match(taken.stderr, /no store at .*: the folder does not exist/, flag);
    }
  });

  test("gate refuses a --baseline that is --run itself", () => {
    const result = run(["gate", "--run", "r2", "--baseline", "r2", "--data-dir", path.join(folder, "none")]);
    assert.equal(result.status, 2);
    assert.match(result.stderr, /^ragscope gate: --baseline r2: that is --run itself; a run compared with itself passes every regression rule on nothing/);
  });
});
