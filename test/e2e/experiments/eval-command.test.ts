/**
 * `ragscope eval` as a user runs it: a subprocess over the example dataset with
 * the example task module, against a baseline made by the same test that
 * differs on known cases; results read from its JSON and JUnit outputs and
 * compared with SciPy / statsmodels references (test/data/experiments/), the
 * JUnit file validated against the published JUnit schemas (test/data/junit/).
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { XMLParser } from "fast-xml-parser";
import { junitSchemaErrors } from "../../support/junit-schema.js";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const ragscope = path.join(projectRoot, "bin/ragscope.js");
const tasks = path.join(projectRoot, "test/e2e/experiments/tasks");
const references = JSON.parse(await readFile(path.join(projectRoot, "test/data/experiments/comparison-references.json"), "utf8")) as {
  mcnemar_exact_p_value: number;
  case_passed_mean_difference: number;
  case_passed_bootstrap_percentile_95: [number, number];
};

function run(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [ragscope, ...args], { cwd: projectRoot, env: { ...process.env, RAGSCOPE_CONFIG: "" } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("exit", (status) => resolve({ status, stdout, stderr }));
  });
}

describe("ragscope eval", () => {
  let folder: string;
  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-eval-"));
  });
  after(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  test("the example task against a baseline: verdicts, flipped cases, McNemar and bootstrap as SciPy/statsmodels, JUnit, exit code", async () => {
    const dataDir = path.join(folder, "store");
    const dataset = "examples/datasets/policy-regression.yaml";
    const baseline = await run(["eval", "--dataset", dataset, "--task", path.join(tasks, "baseline-task.ts"), "--run-id", "baseline-run", "--data-dir", dataDir]);
    assert.equal(baseline.status, 1, baseline.stderr);
    const output = path.join(folder, "results.json");
    const junit = path.join(folder, "results.xml");
    const candidate = await run([
      "eval", "--dataset", dataset, "--task", "examples/policy-assistant/eval-task.ts", "--run-id", "candidate-run", "--baseline", "baseline-run",
      "--data-dir", dataDir, "--output", output, "--junit", junit, "--lineage", "index_version=idx-7",
    ]);
    // The example pipeline fails P0 and threshold rules by design: the gate blocks.
    assert.equal(candidate.status, 1, candidate.stderr);
    assert.match(candidate.stdout, /Decision: BLOCKED/);
    // Only the heuristic judge scores faithfulness here (no LLM judge configured): the summary says so, as the gate leaves it out.
    assert.match(candidate.stdout, /^\s+faithfulness\s+\d\.\d{4}\s+n=\d+\s+\(all from the heuristic judge: a measurement, never a pass\)$/m);
    const results = JSON.parse(await readFile(output, "utf8"));
    assert.equal(results.case_results.length, 26);
    const verdict = (caseId: string) => results.case_results.find((item: { case_id: string }) => item.case_id === caseId)?.quality_status;
    assert.equal(verdict("rag_coupon_per_order_001"), "passed");
    assert.equal(verdict("rag_refund_arrival_001"), "failed");
    // The example refuses the unanswerable case and flags the refusal on its trace: a right refusal compared with the
    // case's answerability is a judged pass (README "Verdicts"), as for the two other unanswerable cases it refuses.
    assert.equal(verdict("rag_crypto_payment_unanswerable_001"), "passed");
    assert.equal(results.case_results.filter((item: { quality_status: string }) => item.quality_status === "passed").length, 15);
    assert.ok(results.evaluation_results.every((item: Record<string, unknown>) => "evaluation_result_id" in item && "metric_values" in item && "outcome" in item));
    assert.equal(results.run_lineage.index_version, "idx-7");
    assert.equal(results.run_lineage.prompt_version, "policy-answer-v3");

    const comparison = results.comparison;
    assert.deepEqual(comparison.fixed_cases.sort(), ["rag_coupon_per_order_001", "rag_e_invoice_001", "rag_points_expiry_001"]);
    assert.deepEqual(comparison.regressed_cases, ["rag_refund_arrival_001"]);
    assert.equal(comparison.mcnemar.p_value, references.mcnemar_exact_p_value);
    const passed = comparison.metrics.find((item: { metric: string }) => item.metric === "case_passed");
    assert.ok(Math.abs(passed.mean_difference - references.case_passed_mean_difference) < 1e-12);
    // SciPy draws its resamples from NumPy's generator, ours from a seeded mulberry32: the intervals agree within
    // Monte-Carlo error. The bootstrap means of 26 paired differences lie on a grid of step 1/26, and with 10 000
    // resamples the 2.5% / 97.5% quantiles fall on the same grid point or the next: one step is the tolerance.
    const step = 1 / 26 + 1e-9;
    assert.ok(Math.abs(passed.ci_low - references.case_passed_bootstrap_percentile_95[0]) <= step, `low ${passed.ci_low}`);
    assert.ok(Math.abs(passed.ci_high - references.case_passed_bootstrap_percentile_95[1]) <= step, `high ${passed.ci_high}`);
    const overallDrop = results.gate.rules.find((rule: { metric: string }) => rule.metric === "overall_score_drop");
    // No LLM judge ran: the weighted score stands on part of its weights, so the drop is not measured, and says so
    // (the baseline was found and paired: the reason is the score's, not a missing baseline).
    assert.equal(overallDrop.status, "not_available");
    assert.match(overallDrop.reason, /^the weighted score \S+ stands on weight 0\.\d+ of 1 .*missing R \(answer_relevance\)/);

    const xml = await readFile(junit, "utf8");
    // Valid against the published JUnit schemas (test/data/junit/SOURCE.md), checked by libxml2.
    assert.deepEqual(await junitSchemaErrors(xml), { "JUnit.xsd": [], "junit-10.xsd": [] });
    const suite = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "" }).parse(xml).testsuites.testsuite[0];
    const testcases = suite.testcase as { name: string; failure?: unknown; skipped?: unknown }[];
    assert.equal(testcases.length, 26);
    assert.equal(Number(suite.tests), 26);
    assert.equal(Number(suite.failures), 11);
    // Every case now has a verdict able to judge it: none is skipped.
    assert.equal(Number(suite.skipped), 0);
    assert.ok(testcases.find((item) => item.name === "rag_refund_arrival_001@v1")?.failure);
    assert.ok(!testcases.find((item) => item.name === "rag_coupon_per_order_001@v1")?.failure);
  });

  test("a task that throws, hangs past the timeout or returns nothing gives failed cases with the error; the run completes", async () => {
    const dataset = path.join(folder, "failing.json");
    const base = { dataset_id: "failing", dataset_version: "1" };
    await writeFile(dataset, JSON.stringify({ ...base, cases: ["case_throws", "case_hangs", "case_empty", "case_fine"].map((id) => ({ case_id: id, case_version: "1", input: `question of ${id}` })) }));
    const output = path.join(folder, "failing-results.json");
    const result = await run(["eval", "--dataset", dataset, "--task", path.join(tasks, "failing-tasks.ts"), "--timeout-ms", "1500", "--data-dir", path.join(folder, "failing-store"), "--output", output]);
    const results = JSON.parse(await readFile(output, "utf8"));
    const byId = new Map(results.case_results.map((item: { case_id: string }) => [item.case_id, item])) as Map<string, { execution_status: string; execution_error: { type: string; message: string } }>;
    assert.equal(byId.size, 4, result.stderr);
    assert.equal(byId.get("case_throws")?.execution_status, "failed");
    assert.match(byId.get("case_throws")!.execution_error.message, /the pipeline is down/);
    assert.equal(byId.get("case_hangs")?.execution_status, "failed");
    assert.equal(byId.get("case_hangs")?.execution_error.type, "timeout");
    assert.equal(byId.get("case_empty")?.execution_status, "failed");
    assert.match(byId.get("case_empty")!.execution_error.message, /returned nothing/);
    assert.equal(byId.get("case_fine")?.execution_status, "completed");
    assert.match(result.stdout, /3 task failures/);
  });

  test("a task that timed out blocks a gate whose file does not bound the timeout rate, and one whose rule allows it passes", async () => {
    const dataset = path.join(folder, "timeouts.json");
    await writeFile(dataset, JSON.stringify({ dataset_id: "timeouts", dataset_version: "1", cases: ["case_hangs", "case_fine_1", "case_fine_2"].map((id) => ({ case_id: id, case_version: "1", input: `question of ${id}` })) }));
    const gateOf = async (name: string, lines: string[]) => {
      const file = path.join(folder, name);
      await writeFile(file, ["performance:", ...lines, ""].join("\n"));
      return file;
    };
    const errorsOnly = await gateOf("errors-only.yaml", ['  error_rate: "<= 0.5"']);
    const blocked = await run(["eval", "--dataset", dataset, "--task", path.join(tasks, "failing-tasks.ts"), "--timeout-ms", "800", "--data-dir", path.join(folder, "timeouts-store"), "--run-id", "timeouts-1", "--gates", errorsOnly]);
    assert.equal(blocked.status, 1, blocked.stdout + blocked.stderr);
    assert.match(blocked.stdout, /implied\.timeout_rate\s+0\.3333\s+= 0\s+\(timeout_rate = 0\.333\d* misses = 0: the gate file has no timeout_rate rule, and a request that did not complete is a failed case; add one \(performance\.timeout_rate: "<= 0\.01"\) to allow some\)/);

    const allowing = await gateOf("allowing.yaml", ['  error_rate: "<= 0.5"', '  timeout_rate: "<= 0.5"']);
    const passed = await run(["eval", "--dataset", dataset, "--task", path.join(tasks, "failing-tasks.ts"), "--timeout-ms", "800", "--data-dir", path.join(folder, "timeouts-store"), "--run-id", "timeouts-2", "--gates", allowing]);
    assert.equal(passed.status, 0, passed.stdout + passed.stderr);
    assert.doesNotMatch(passed.stdout, /implied\./);
  });

  test("--output into folders not made yet is written; a --junit path that cannot be written is refused before any case runs, named, exit 2", async () => {
    const dataset = path.join(folder, "outputs.json");
    await writeFile(dataset, JSON.stringify({ dataset_id: "outputs", dataset_version: "1", cases: [{ case_id: "case_fine", case_version: "1", input: "a question" }] }));
    const output = path.join(folder, "not-yet", "made", "results.json");
    const written = await run(["eval", "--dataset", dataset, "--task", path.join(tasks, "failing-tasks.ts"), "--data-dir", path.join(folder, "outputs-store"), "--run-id", "outputs-1", "--output", output]);
    assert.equal(JSON.parse(await readFile(output, "utf8")).case_results.length, 1, written.stdout + written.stderr);
    const junit = folder; // a folder, not a file
    const refused = await run(["eval", "--dataset", dataset, "--task", path.join(tasks, "failing-tasks.ts"), "--data-dir", path.join(folder, "outputs-store"), "--run-id", "outputs-2", "--junit", junit]);
    assert.equal(refused.status, 2, refused.stdout + refused.stderr);
    assert.equal(refused.stderr.trim(), `ragscope eval: ${junit}: is a folder, not a JUnit file (--junit); name a file, e.g. ${path.join(junit, "junit.xml")}`);
    assert.doesNotMatch(refused.stdout, /case_fine/, "no case ran");
  });

  test("--repeat 3: every repeat is gated, and a rule repeat 2 failed blocks the run, in its output, JSON and JUnit", async () => {
    const dataset = path.join(folder, "flaky.yaml");
    await writeFile(dataset, "dataset_id: flaky\ndataset_version: '1'\ncases:\n  - { id: refund_window, question: How long do I have to ask for a refund?, relevant_document_ids: [refund-policy], relevant_chunk_ids: [refund-1] }\n");
    const gates = path.join(folder, "flaky-gates.yaml");
    await writeFile(gates, 'retrieval:\n  hit_at_1: ">= 1"\n');
    const output = path.join(folder, "flaky-results.json");
    const junit = path.join(folder, "flaky-results.xml");
    const args = ["--dataset", dataset, "--task", path.join(tasks, "flaky-retrieval-task.ts"), "--gates", gates, "--data-dir", path.join(folder, "flaky-store")];
    const result = await run(["eval", ...args, "--repeat", "3", "--run-id", "flaky", "--output", output, "--junit", junit]);
    // Repeat 1 alone passes the rule (hit@1 = 1); repeat 2 ranked the relevant chunk third.
    assert.match(result.stdout, /Release gate \(repeat 1, run flaky\): PASSED/);
    assert.match(result.stdout, /Release gate \(repeat 2, run flaky\.repeat-2\): BLOCKED — 0 passed, 1 failed/);
    assert.match(result.stdout, /Release gate \(repeat 3, run flaky\.repeat-3\): PASSED/);
    assert.match(result.stdout, /Decision: BLOCKED \(the worst of 3 repeats decides: repeat 2 blocked\)/);
    assert.equal(result.status, 1, result.stdout + result.stderr);
    const results = JSON.parse(await readFile(output, "utf8"));
    assert.equal(results.decision, "blocked");
    assert.deepEqual(results.repeat_gates.map((item: { run_id: string; decision: string }) => [item.run_id, item.decision]), [["flaky.repeat-2", "blocked"], ["flaky.repeat-3", "passed"]]);
    const failed = results.repeat_gates[0].rules.find((rule: { metric: string }) => rule.metric === "hit_at_1");
    assert.deepEqual([failed.status, failed.value], ["failed", 0]);
    const xml = await readFile(junit, "utf8");
    assert.deepEqual(await junitSchemaErrors(xml), { "JUnit.xsd": [], "junit-10.xsd": [] });
    const suites = new XMLParser({ ignoreAttributes: false }).parse(xml).testsuites.testsuite as Array<Record<string, string>>;
    const repeatTwo = suites.find((suite) => suite["@_name"] === "release gate (repeat 2, run flaky.repeat-2)");
    assert.equal(repeatTwo?.["@_failures"], "1", "repeat 2's failed rule is a failure in the JUnit file");

    // `ragscope gate` on the stored run decides as eval did: it gated repeat 1 alone and passed.
    const gateJunit = path.join(folder, "flaky-gate.xml");
    const gated = await run(["gate", "--run", "flaky", "--gates", gates, "--data-dir", path.join(folder, "flaky-store"), "--junit", gateJunit]);
    assert.equal(gated.status, 1, gated.stdout + gated.stderr);
    // Its JUnit file as eval's: a suite per further repeat, repeat 2's failed rule a failure.
    const gateXml = await readFile(gateJunit, "utf8");
    assert.deepEqual(await junitSchemaErrors(gateXml), { "JUnit.xsd": [], "junit-10.xsd": [] });
    const gateSuites = new XMLParser({ ignoreAttributes: false }).parse(gateXml).testsuites.testsuite as Array<Record<string, string>>;
    assert.deepEqual(gateSuites.map((suite) => [suite["@_name"], suite["@_failures"]]), [["release gate", "0"], ["release gate (repeat 2, run flaky.repeat-2)", "1"], ["release gate (repeat 3, run flaky.repeat-3)", "0"]]);
    assert.match(gated.stdout, /^Release gate for run flaky \(repeat 1\) \(1 cases\): PASSED/m);
    assert.match(gated.stdout, /^Release gate for run flaky\.repeat-2 \(repeat 2, 1 cases\): BLOCKED — 0 passed, 1 failed/m);
    assert.match(gated.stdout, /^\s+FAIL\s+retrieval\.hit_at_1\s+0\s+>= 1$/m);
    assert.match(gated.stdout, /^Release gate for run flaky\.repeat-3 \(repeat 3, 1 cases\): PASSED/m);
    assert.match(gated.stdout, /^Decision: BLOCKED \(the worst of 3 repeats decides: repeat 2 blocked\)$/m);

    // One repeat: the gate reads the one run, as before.
    const single = await run(["eval", ...args, "--run-id", "steady"]);
    assert.equal(single.status, 0, single.stdout + single.stderr);
    assert.match(single.stdout, /^Release gate: PASSED/m);
    assert.match(single.stdout, /^Decision: PASSED$/m);
    const gatedSingle = await run(["gate", "--run", "steady", "--gates", gates, "--data-dir", path.join(folder, "flaky-store")]);
    assert.equal(gatedSingle.status, 0, gatedSingle.stdout + gatedSingle.stderr);
    assert.match(gatedSingle.stdout, /^Release gate for run steady \(1 cases\): PASSED/m);
    assert.doesNotMatch(gatedSingle.stdout, /repeat/);
  });

  test("--repeat 3 with a nondeterministic task lists the unstable case", async () => {
    const dataset = path.join(folder, "coin.yaml");
    await writeFile(dataset, "dataset_id: coin\ndataset_version: '1'\ncases:\n  - { case_id: steady, case_version: '1', input: a question }\n  - { case_id: flip_coin, case_version: '1', input: another question }\n");
    const output = path.join(folder, "coin-results.json");
    const result = await run(["eval", "--dataset", dataset, "--task", path.join(tasks, "coin-task.ts"), "--repeat", "3", "--data-dir", path.join(folder, "coin-store"), "--output", output]);
    assert.match(result.stdout, /UNSTABLE flip_coin@1: answer agreement 0\.0000/);
    assert.doesNotMatch(result.stdout, /UNSTABLE steady/);
    const results = JSON.parse(await readFile(output, "utf8"));
    assert.deepEqual(results.run_ids.length, 3);
    const steady = results.consistency.find((item: { case_id: string }) => item.case_id === "steady");
    assert.equal(steady.answer_agreement, 1);
  });
});
