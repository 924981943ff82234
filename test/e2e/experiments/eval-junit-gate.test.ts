/**
 * `ragscope eval --junit` carries the release gate's decision, not only the
 * cases' verdicts: CI shows the JUnit file, and a file of passing (or
 * skipped) cases read green while the gate blocked the job (exit 1). Two
 * runs of the built CLI over cases whose task answers fine:
 * - a gate file with a rule that passes (error_rate <= 0.5), one that fails
 *   (p95_latency_ms >= 3600000: no request takes an hour) and one that cannot
 *   be measured (recall_at_5: the task retrieves nothing) → exit 1, and the
 *   "release gate" suite has the passing rule as a plain testcase, the failed
 *   one a <failure type="failed"> naming its value and threshold, the
 *   unmeasured one a <failure type="not_measured">;
 * - the same with --allow-missing and without the failing rule → exit 0, the
 *   unmeasured rule <skipped> (allowed, never a pass), no failure anywhere.
 * Both files valid against the published JUnit schemas (test/data/junit).
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { junitSchemaErrors } from "../../support/junit-schema.js";
import { parseJunitSuites } from "../../support/junit-suites.js";
import { runRagscope, tasksFolder } from "./support/run-ragscope.js";

const parse = parseJunitSuites;

describe("ragscope eval --junit: the release gate's decision is in the file", () => {
  let folder: string;
  let dataset: string;
  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-junit-gate-"));
    dataset = path.join(folder, "cases.json");
    await writeFile(dataset, JSON.stringify({ dataset_id: "junit_gate", dataset_version: "1", cases: ["case_fine_1", "case_fine_2"].map((id) => ({ case_id: id, case_version: "1", input: `question of ${id}` })) }));
  });
  after(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  const evalWith = async (runId: string, gateLines: string[], extra: string[] = []) => {
    const gates = path.join(folder, `${runId}.yaml`);
    await writeFile(gates, [...gateLines, ""].join("\n"));
    const junit = path.join(folder, `${runId}.xml`);
    const result = await runRagscope(["eval", "--dataset", dataset, "--task", path.join(tasksFolder, "failing-tasks.ts"), "--data-dir", path.join(folder, "store"), "--run-id", runId, "--gates", gates, "--junit", junit, ...extra]);
    return { result, xml: await readFile(junit, "utf8") };
  };

  test("a blocked gate: a failure per failed or unmeasured rule, the passing rule a plain testcase, exit 1", async () => {
    const { result, xml } = await evalWith("blocked", ["performance:", '  error_rate: "<= 0.5"', '  p95_latency_ms: ">= 3600000"', "retrieval:", '  recall_at_5: ">= 0.9"']);
    assert.equal(result.status, 1, result.stdout + result.stderr);
    assert.match(result.stdout, /Decision: BLOCKED/);
    assert.deepEqual(await junitSchemaErrors(xml), { "JUnit.xsd": [], "junit-10.xsd": [] });
    const [cases, gate] = parse(xml);
    // The cases alone are not red: this is the file CI showed as green.
    assert.equal(Number(cases!.failures) + Number(cases!.errors), 0);
    assert.equal(gate!.name, "release gate");
    assert.deepEqual([gate!.tests, gate!.failures, gate!.errors, gate!.skipped], ["3", "2", "0", "0"]);
    const rule = (name: string) => gate!.testcase.find((item) => item.name === name)!;
    assert.deepEqual(rule('performance.error_rate <= 0.5'), { name: "performance.error_rate <= 0.5", classname: "release gate", time: "0" });
    const latency = rule("performance.p95_latency_ms >= 3600000").failure!;
    assert.equal(latency.type, "failed");
    assert.match(latency.message!, /^performance\.p95_latency_ms = \d+(\.\d+)?, threshold >= 3600000: failed$/);
    const recall = rule("retrieval.recall_at_5 >= 0.9").failure!;
    assert.equal(recall.type, "not_measured");
    assert.match(recall.message!, /^retrieval\.recall_at_5 = not measured, threshold >= 0\.9: could not be measured/);
  });

  test("--allow-missing: the unmeasured rule is skipped, not passed; nothing fails, exit 0", async () => {
    const { result, xml } = await evalWith("allowed", ["performance:", '  error_rate: "<= 0.5"', "retrieval:", '  recall_at_5: ">= 0.9"'], ["--allow-missing"]);
    assert.equal(result.status, 0, result.stdout + result.stderr);
    assert.deepEqual(await junitSchemaErrors(xml), { "JUnit.xsd": [], "junit-10.xsd": [] });
    const gate = parse(xml)[1]!;
    assert.deepEqual([gate.tests, gate.failures, gate.errors, gate.skipped], ["2", "0", "0", "1"]);
    assert.match(gate.testcase.find((item) => item.name === "retrieval.recall_at_5 >= 0.9")!.skipped!.message!, /allowed by --allow-missing — not a pass$/);
  });
});
