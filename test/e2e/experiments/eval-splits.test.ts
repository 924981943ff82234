/**
 * Splits, blind data, the mix report, the end-to-end scores and progress, as
 * a user meets them: `ragscope validate --stats`, `ragscope eval --split`, a
 * run over a dataset with a blind split whose gold data carries the marker
 * BLINDGOLD (never printed: stdout, JSON, JUnit, `ragscope report`) while the
 * dev split's DEVGOLD is (so a leak would be seen), and the progress lines on
 * a terminal (a pseudo-terminal from util-linux `script`) and off one.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { projectRoot, ragscopeBinary, runRagscope, tasksFolder, type Finished } from "./support/run-ragscope.js";

const dataset = path.join(projectRoot, "test/e2e/experiments/data/split-dataset.yaml");
const task = path.join(tasksFolder, "retrieving-task.ts");
const close = (actual: number, expected: number) => assert.ok(Math.abs(actual - expected) < 1e-12, `${actual} != ${expected}`);

/** Runs ragscope under a pseudo-terminal: `script` gives the child a TTY and copies what it writes. */
function runUnderTerminal(args: string[]): Promise<Finished> {
  const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;
  return new Promise((resolve) => {
    const child = spawn("script", ["-qec", [process.execPath, ragscopeBinary, ...args].map(quote).join(" "), "/dev/null"], { cwd: projectRoot, env: { ...process.env, RAGSCOPE_CONFIG: "" } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("exit", (status) => resolve({ status, stdout, stderr }));
  });
}

describe("ragscope eval: splits, blind data, mix report, end-to-end scores, progress", () => {
  let folder: string;
  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-eval-splits-"));
  });
  after(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  test("validate --stats: the mix against the seed's 50/20/10/10/10, per split, with a warning for the missing split", async () => {
    const result = await runRagscope(["validate", "--stats", dataset]);
    assert.equal(result.status, 0, result.stderr);
    const lines = result.stdout.split("\n").map((line) => line.trim().replace(/\s+/g, " "));
    assert.ok(lines.includes(`${dataset}: valid — 6 cases, simple format (seed 004 §二.1)`.replace(/\s+/g, " ")), result.stdout);
    // Overall: 2 high-frequency of 6 = 33%, one each of the rest = 17%.
    const overall = lines.slice(lines.indexOf("Mix of 6 cases (seed 004 §二.2):") + 1, lines.indexOf("Split blind: 2 cases"));
    assert.deepEqual(overall, [
      "high_frequency 2 33% recommended 50%",
      "long_tail 1 17% recommended 20%",
      "multi_hop 1 17% recommended 10%",
      "unanswerable 1 17% recommended 10%",
      "adversarial 1 17% recommended 10%",
    ]);
    const split = (name: string) => lines.slice(lines.indexOf(`Split ${name}: 2 cases`) + 1, lines.indexOf(`Split ${name}: 2 cases`) + 6);
    assert.deepEqual(split("blind"), ["high_frequency 0 0% recommended 50%", "long_tail 0 0% recommended 20%", "multi_hop 1 50% recommended 10%", "unanswerable 0 0% recommended 10%", "adversarial 1 50% recommended 10%"]);
    assert.deepEqual(split("regression"), ["high_frequency 1 50% recommended 50%", "long_tail 0 0% recommended 20%", "multi_hop 0 0% recommended 10%", "unanswerable 1 50% recommended 10%", "adversarial 0 0% recommended 10%"]);
    assert.ok(lines.includes("warning: no case in split online-sample (metadata.split or metadata.dataset_role)"));

    // All four splits present: no warning.
    const complete = path.join(folder, "four-splits.json");
    await writeFile(complete, JSON.stringify({ dataset_id: "four", dataset_version: "1", cases: ["dev", "regression", "blind", "online-sample"].map((split, index) => ({ id: `case_${index}`, question: `question ${index}`, question_type: "high_frequency", metadata: { split } })) }));
    const four = await runRagscope(["validate", "--stats", complete]);
    assert.equal(four.status, 0, four.stderr);
    assert.match(four.stdout, /^ {2}Split online-sample: 1 case$/m);
    assert.doesNotMatch(four.stdout, /warning/);
  });

  test("--split regression runs only the regression cases; off a terminal the progress is plain lines", async () => {
    const output = path.join(folder, "regression.json");
    const result = await runRagscope(["eval", "--dataset", dataset, "--task", task, "--split", "regression", "--run-id", "regression-only", "--data-dir", path.join(folder, "regression-store"), "--output", output]);
    assert.equal(result.status, 1, result.stderr);
    const results = JSON.parse(await readFile(output, "utf8"));
    assert.deepEqual(results.case_results.map((item: { case_id: string }) => item.case_id).sort(), ["regression_crypto", "regression_shipping_fee"]);
    assert.equal(results.dataset.cases, 2);
    assert.doesNotMatch(result.stdout, /dev_refund_window|dev_gift_cards|blind_warranty|blind_injection/);
    // The run summary's mix covers the cases run: 1 high-frequency and 1 unanswerable of 2, and the splits it lacks.
    const lines = result.stdout.split("\n").map((line) => line.trim().replace(/\s+/g, " "));
    const mixStart = lines.indexOf("Mix of 2 cases (seed 004 §二.2):");
    assert.ok(mixStart >= 0, result.stdout);
    assert.deepEqual(lines.slice(mixStart + 1, mixStart + 6), ["high_frequency 1 50% recommended 50%", "long_tail 0 0% recommended 20%", "multi_hop 0 0% recommended 10%", "unanswerable 1 50% recommended 10%", "adversarial 0 0% recommended 10%"]);
    assert.ok(lines.includes("warning: no case in splits dev, blind, online-sample (metadata.split or metadata.dataset_role)"), result.stdout);
    assert.deepEqual(results.dataset.mix.missing_splits, ["dev", "blind", "online-sample"]);
    assert.deepEqual(results.dataset.mix.splits.map((split: { split: string; cases: number }) => [split.split, split.cases]), [["regression", 2]]);
    // Not a TTY: one plain line per step, no carriage returns or terminal escapes.
    assert.doesNotMatch(result.stderr, /\r|\u001b\[/);
    const progress = result.stderr.split("\n").filter((line) => line.startsWith("cases "));
    assert.equal(progress.at(-1), "cases 2/2, 0 task failures, ETA 0 s");
    assert.ok(progress.every((line) => /^cases [12]\/2, 0 task failures, ETA \d+ s$/.test(line)), progress.join("\n"));

    const unknown = await runRagscope(["eval", "--dataset", dataset, "--task", task, "--split", "holdout", "--data-dir", path.join(folder, "regression-store")]);
    assert.equal(unknown.status, 2);
    assert.match(unknown.stderr, /no case in split "holdout" to run; its splits: blind, dev, regression/);
  });

  test("a blind split's gold data is never printed — stdout, JSON, JUnit, report — only its scores; the end-to-end scores with the gate file's weights", async () => {
    const dataDir = path.join(folder, "all-store");
    const output = path.join(folder, "all.json");
    const junit = path.join(folder, "all.xml");
    const gates = path.join(folder, "gates.yaml");
    await writeFile(gates, 'score_weights:\n  answer_relevance: 0.1\n  faithfulness: 0.2\n  answer_correctness: 0.2\n  completeness: 0.3\n  citation_accuracy: 0.2\nretrieval:\n  recall_at_5: ">= 0.9"\n');
    const result = await runRagscope(["eval", "--dataset", dataset, "--task", task, "--run-id", "with-blind", "--data-dir", dataDir, "--output", output, "--junit", junit, "--gates", gates]);
    assert.equal(result.status, 1, result.stderr);
    const report = path.join(folder, "report.html");
    const reported = await runRagscope(["report", "--run", "with-blind", "--data-dir", dataDir, "--out", report]);
    assert.equal(reported.status, 0, reported.stderr);

    const outputs = { stdout: result.stdout + result.stderr, json: await readFile(output, "utf8"), junit: await readFile(junit, "utf8"), report: await readFile(report, "utf8"), reportStdout: reported.stdout };
    for (const [name, text] of Object.entries(outputs)) assert.doesNotMatch(text, /BLINDGOLD/, `blind gold data printed in ${name}`);
    // The control: the dev split's gold data is quoted where evaluators quote it, so the check above can fail.
    assert.match(outputs.stdout, /DEVGOLD/);
    assert.match(outputs.report, /DEVGOLD/);
    assert.match(reported.stdout, /table cells withheld: they quote gold data of blind-split cases/);

    const results = JSON.parse(outputs.json);
    // The blind cases keep their verdicts and scores.
    const blind = results.case_results.find((item: { case_id: string }) => item.case_id === "blind_warranty");
    assert.equal(blind.quality_status, "failed");
    const blindScores = results.evaluation_results.filter((item: { case_result_id: string }) => item.case_result_id === blind.case_result_id);
    assert.ok(blindScores.some((item: { metric_values: Record<string, number | null> }) => item.metric_values.recall_at_5 === 0), "the blind case's recall@5 is shown");
    assert.match(result.stdout, /FAILED\s+blind_warranty@1/);

    // Seed §六/§七 worked by hand: verdicts 2 passed (regression_shipping_fee, and regression_crypto: the unanswerable
    // case's answer "The documents do not say." refuses in whole, a right refusal compared with the case's answerability),
    // 4 failed → task success 2/6; cost 6 × 0.01 over 2 successes = 0.03.
    const endToEnd = results.end_to_end;
    close(endToEnd.task_success_rate, 2 / 6);
    close(endToEnd.cost_per_successful_task, 0.03);
    assert.equal(endToEnd.overall_score.weights_from, "gate file score_weights");
    assert.deepEqual(endToEnd.overall_score.weights, { answer_relevance: 0.1, faithfulness: 0.2, answer_correctness: 0.2, completeness: 0.3, citation_accuracy: 0.2 });
    // The eval's judge is the heuristic one, and a heuristic never decides: the judged terms have no value in the score
    // (evaluators/aggregate/without-heuristic-judgements.ts), whatever the heuristic judge scored.
    const terms = endToEnd.overall_score.terms as { metric: string; weight: number; value: number | null }[];
    for (const judged of ["faithfulness", "answer_relevance", "answer_correctness"]) assert.equal(terms.find((term) => term.metric === judged)?.value, null, `${judged} in the score`);
    assert.equal(endToEnd.hard_thresholds.find((item: { metric: string }) => item.metric === "faithfulness").value, null);
    // Every term of this example comes from the judge (the rule metrics of the score have no value here), so the
    // score is not available rather than computed from the heuristic's numbers.
    assert.deepEqual(terms.filter((term) => term.value !== null), []);
    assert.equal(endToEnd.overall_score.value, null);
    assert.deepEqual(endToEnd.hard_thresholds.map((item: { metric: string }) => item.metric), ["faithfulness", "answer_correctness", "no_answer_accuracy", "recall_at_5", "p95_latency_ms"]);
    // recall@5: 1 of the 5 answerable cases retrieved its gold chunk.
    const recall = endToEnd.hard_thresholds.find((item: { metric: string }) => item.metric === "recall_at_5");
    close(recall.value, 1 / 5);
    assert.equal(recall.status, "fail");
    assert.match(result.stdout, /task success rate\s+0\.3333\s+\(2 of 6 tasks with a verdict succeeded\)/);
    assert.match(result.stdout, /overall score\s+n\/a\s+R 0\.10 \+ F 0\.20 \+ C 0\.20 \+ Comp 0\.30 \+ Cit 0\.20 \(gate file score_weights\)/);
    assert.match(result.stdout, /cost per successful task\s+0\.0300\s+\(total cost 0\.0600 \/ 2 successful tasks\)/);
  });

  test("on a terminal the progress is one line rewritten in place: cases done / total, failures so far, ETA", async () => {
    const failing = path.join(folder, "two.json");
    await writeFile(failing, JSON.stringify({ dataset_id: "two", dataset_version: "1", cases: ["case_throws", "case_fine"].map((id) => ({ case_id: id, case_version: "1", input: `question of ${id}` })) }));
    const result = await runUnderTerminal(["eval", "--dataset", failing, "--task", path.join(tasksFolder, "failing-tasks.ts"), "--data-dir", path.join(folder, "tty-store"), "--concurrency", "1"]);
    assert.equal(result.status, 1, result.stdout + result.stderr);
    // Each update returns to the line start and erases the rest of the line.
    assert.match(result.stdout, /\rcases 1\/2, 1 task failure, ETA \d+ s\u001b\[K/);
    assert.match(result.stdout, /\rcases 2\/2, 1 task failure, ETA 0 s\u001b\[K/);
    assert.doesNotMatch(result.stdout, /cases 1\/2, 1 task failure, ETA \d+ s\r?\n/, "no plain progress line on a terminal");
    assert.match(result.stdout, /1 task failures/);
  });
});
