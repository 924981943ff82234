/**
 * `ragscope gate --junit FILE`: a CI job that gates a stored run gets the
 * `release gate` suite `eval --junit` writes, so the file CI shows is red
 * whenever the gate blocked or could not decide. Built CLI as a subprocess,
 * over runs an `eval` stored (task test/e2e/experiments/tasks/failing-tasks.ts
 * answering every case; it retrieves nothing, so recall_at_5 is not measured):
 * - run "with-veto" (a P0 case nothing could judge, so it did not pass) against
 *   a gate file whose rules pass (error_rate <= 0.5), fail (p95_latency_ms >=
 *   3600000: no request takes an hour) and cannot be measured (recall_at_5):
 *   exit 1, and the suite is the one eval wrote for the same run and file
 *   (timestamps apart), each element as the eval's JUnit test asserts it;
 * - run "plain" with --allow-missing and no failing rule: exit 0, the
 *   unmeasured rule <skipped>, nothing failed;
 * - a run id with no stored results: exit 2, and the file holds the one
 *   <error type="undecided"> saying why — not an empty, green suite;
 * - a folder as --junit: refused before the store is read (exit 2).
 * Every file valid against the published JUnit schemas (test/data/junit).
 */
import assert from "node:assert/strict";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { junitSchemaErrors } from "../../support/junit-schema.js";
import { parseJunitSuites, type JunitSuite } from "../../support/junit-suites.js";
import { runRagscope, tasksFolder } from "./support/run-ragscope.js";

const parse = parseJunitSuites;
/** A suite without when it ran and its place in the document (eval's is the second suite): eval's and gate's differ there only. */
const comparableSuite = ({ timestamp: _timestamp, id: _id, ...suite }: JunitSuite) => suite;
const VALID = { "JUnit.xsd": [], "junit-10.xsd": [] };
const ENVIRONMENT = { RAGSCOPE_CLICKHOUSE_URL: "" };

describe("ragscope gate --junit: the release gate suite of a stored run", () => {
  let folder: string;
  let dataDir: string;
  const blockingGates = ["performance:", '  error_rate: "<= 0.5"', '  p95_latency_ms: ">= 3600000"', "retrieval:", '  recall_at_5: ">= 0.9"', ""].join("\n");
  const allowedGates = ["performance:", '  error_rate: "<= 0.5"', "retrieval:", '  recall_at_5: ">= 0.9"', ""].join("\n");
  let evalXml: string;

  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-gate-junit-"));
    dataDir = path.join(folder, "store");
    await writeFile(path.join(folder, "blocking.yaml"), blockingGates);
    await writeFile(path.join(folder, "allowed.yaml"), allowedGates);
    const withVeto = { dataset_id: "gate_junit", dataset_version: "1", cases: [{ case_id: "case_fine", case_version: "1", input: "a question" }, { case_id: "case_critical", case_version: "1", input: "a critical question", risk_level: "P0" }] };
    const plain = { dataset_id: "gate_junit_plain", dataset_version: "1", cases: [{ case_id: "case_fine", case_version: "1", input: "a question" }] };
    await writeFile(path.join(folder, "with-veto.json"), JSON.stringify(withVeto));
    await writeFile(path.join(folder, "plain.json"), JSON.stringify(plain));
    const task = path.join(tasksFolder, "failing-tasks.ts");
    const evaluated = await runRagscope(["eval", "--dataset", path.join(folder, "with-veto.json"), "--task", task, "--run-id", "with-veto", "--gates", path.join(folder, "blocking.yaml"), "--junit", path.join(folder, "eval.xml"), "--data-dir", dataDir], ENVIRONMENT);
    assert.equal(evaluated.status, 1, evaluated.stdout + evaluated.stderr);
    evalXml = await readFile(path.join(folder, "eval.xml"), "utf8");
    const plainRun = await runRagscope(["eval", "--dataset", path.join(folder, "plain.json"), "--task", task, "--run-id", "plain", "--gates", path.join(folder, "allowed.yaml"), "--allow-missing", "--data-dir", dataDir], ENVIRONMENT);
    assert.equal(plainRun.status, 0, plainRun.stdout + plainRun.stderr);
  });
  after(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  const gate = async (name: string, args: string[]) => {
    const junit = path.join(folder, "gate-output", `${name}.xml`);
    const result = await runRagscope(["gate", "--data-dir", dataDir, "--junit", junit, ...args], ENVIRONMENT);
    return { result, xml: existsSync(junit) ? await readFile(junit, "utf8") : null };
  };

  test("blocked by a failed rule, an unmeasured one and a veto case: exit 1, the suite eval wrote for the run", async () => {
    const { result, xml } = await gate("blocked", ["--run", "with-veto", "--gates", path.join(folder, "blocking.yaml")]);
    assert.equal(result.status, 1, result.stdout + result.stderr);
    assert.ok(xml !== null, "no JUnit file written");
    assert.deepEqual(await junitSchemaErrors(xml), VALID);
    const suites = parse(xml);
    assert.deepEqual(suites.map((suite) => suite.name), ["release gate"]);
    const suite = suites[0]!;
    assert.deepEqual([suite.tests, suite.failures, suite.errors, suite.skipped], ["4", "3", "0", "0"]);
    const testcase = (name: string) => suite.testcase.find((item) => item.name === name)!;
    assert.deepEqual(testcase("performance.error_rate <= 0.5"), { name: "performance.error_rate <= 0.5", classname: "release gate", time: "0" });
    assert.equal(testcase("performance.p95_latency_ms >= 3600000").failure!.type, "failed");
    assert.equal(testcase("retrieval.recall_at_5 >= 0.9").failure!.type, "not_measured");
    const veto = testcase("veto cases (P0 or metadata.veto: true)").failure!;
    assert.equal(veto.type, "veto");
    assert.equal(veto["#text"], "case_critical");
    // The same suite eval wrote for this run and gate file.
    const evalGate = parse(evalXml).find((item) => item.name === "release gate")!;
    assert.deepEqual(comparableSuite(suite), comparableSuite(evalGate));
  });

  test("--allow-missing: the unmeasured rule skipped, not passed; nothing fails, exit 0", async () => {
    const { result, xml } = await gate("allowed", ["--run", "plain", "--gates", path.join(folder, "allowed.yaml"), "--allow-missing"]);
    assert.equal(result.status, 0, result.stdout + result.stderr);
    assert.ok(xml !== null, "no JUnit file written");
    assert.deepEqual(await junitSchemaErrors(xml), VALID);
    const suite = parse(xml)[0]!;
    assert.deepEqual([suite.tests, suite.failures, suite.errors, suite.skipped], ["2", "0", "0", "1"]);
    assert.match(suite.testcase.find((item) => item.name === "retrieval.recall_at_5 >= 0.9")!.skipped!.message!, /allowed by --allow-missing — not a pass$/);
  });

  test("a run with no stored results: exit 2, and the file says why the gate could not decide", async () => {
    const { result, xml } = await gate("undecided", ["--run", "no-such-run", "--gates", path.join(folder, "blocking.yaml")]);
    assert.equal(result.status, 2, result.stdout + result.stderr);
    assert.match(result.stderr, /^ragscope gate: run "no-such-run" has no stored results/);
    assert.ok(xml !== null, "no JUnit file written");
    assert.deepEqual(await junitSchemaErrors(xml), VALID);
    const suite = parse(xml)[0]!;
    assert.deepEqual([suite.name, suite.tests, suite.failures, suite.errors, suite.skipped], ["release gate", "1", "0", "1", "0"]);
    const error = suite.testcase[0]!.error!;
    assert.equal(error.type, "undecided");
    assert.match(error["#text"]!, /^run "no-such-run" has no stored results/);
  });

  test("a folder as --junit: refused before the store is read, exit 2", async () => {
    const target = path.join(folder, "a-folder");
    await mkdir(target, { recursive: true });
    const result = await runRagscope(["gate", "--run", "with-veto", "--gates", path.join(folder, "blocking.yaml"), "--data-dir", dataDir, "--junit", target], ENVIRONMENT);
    assert.equal(result.status, 2, result.stdout + result.stderr);
    assert.deepEqual(result.stderr.trim().split("\n"), [`ragscope gate: ${target}: is a folder, not a JUnit file (--junit); name a file, e.g. ${path.join(target, "junit.xml")}`]);
    assert.equal(result.stdout, "");
  });
});
