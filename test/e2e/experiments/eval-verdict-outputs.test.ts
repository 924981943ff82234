/**
 * What `ragscope eval` writes for cases at the edges of the verdict table, as
 * a user meets it: the CLI as a subprocess over test/e2e/experiments/data/
 * verdict-dataset.json with a task that scripts each stage
 * (tasks/scripted-rag-task.ts), a baseline run first (its variant answers the
 * unanswerable question), then the candidate with --output, --junit and
 * --baseline, and `ragscope report` over the store.
 *
 * - A right refusal of an unanswerable case is a judged pass (README
 *   "Verdicts": a deterministic rule compared the answer with the case's
 *   answerability), counted in task success and listed as fixed against a
 *   baseline that answered; a refusal beside a claim of its own, and
 *   answering an answerable case, judge nothing.
 * - The JUnit file: an evaluator error is an <error>, a case that needs review
 *   a <failure type="review_required">, only a case nothing could judge is
 *   <skipped> (experiments/README.md "JUnit").
 * - A blind case's gold ids are in no evidence_refs of the JSON; a regression
 *   case whose own reasons name a document that is also the blind case's gold
 *   document keeps them, in the JSON and in the report.
 * - citation.coverage says what is true of a one-sentence answer that cites a
 *   chunk which does not support it: cited, but not supported.
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { XMLParser } from "fast-xml-parser";
import { junitSchemaErrors } from "../../support/junit-schema.js";
import { projectRoot, runRagscope, tasksFolder, type Finished } from "./support/run-ragscope.js";

const dataset = path.join(projectRoot, "test/e2e/experiments/data/verdict-dataset.json");

interface Results {
  case_results: { case_id: string; case_result_id: string; trace_id: string; quality_status: string }[];
  evaluation_results: { case_result_id: string; evaluator_id: string; outcome: string; reason: string; evidence_refs: string[]; metric_values: Record<string, number | null> }[];
  comparison: { fixed_cases: string[]; regressed_cases: string[] };
  end_to_end: { task_success: { succeeded: number; with_verdict: number; without_verdict: number; unjudged: number } };
}

interface JunitCase {
  name: string;
  failure?: { type: string; message: string; "#text"?: string };
  error?: { type: string; message: string; "#text"?: string };
  skipped?: { message: string };
}

describe("ragscope eval: refusals, the JUnit mapping, blind gold ids, citation coverage", () => {
  let folder: string;
  let dataDir: string;
  let candidate: Finished;
  let results: Results;
  let xml: string;

  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-eval-verdicts-"));
    dataDir = path.join(folder, "store");
    const baseline = await runRagscope(["eval", "--dataset", dataset, "--task", path.join(tasksFolder, "scripted-rag-baseline-task.ts"), "--run-id", "baseline", "--data-dir", dataDir]);
    assert.notEqual(baseline.status, 2, baseline.stdout + baseline.stderr);
    const output = path.join(folder, "results.json");
    const junit = path.join(folder, "results.xml");
    candidate = await runRagscope(["eval", "--dataset", dataset, "--task", path.join(tasksFolder, "scripted-rag-task.ts"), "--run-id", "candidate", "--baseline", "baseline", "--data-dir", dataDir, "--output", output, "--junit", junit]);
    // A P0 case could not be judged (its ranking lists a chunk twice) and two cases fail: the gate blocks.
    assert.equal(candidate.status, 1, candidate.stdout + candidate.stderr);
    results = JSON.parse(await readFile(output, "utf8")) as Results;
    xml = await readFile(junit, "utf8");
  });

  after(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  const caseOf = (caseId: string) => results.case_results.find((item) => item.case_id === caseId)!;
  const evaluationOf = (caseId: string, evaluatorId: string) => results.evaluation_results.find((item) => item.case_result_id === caseOf(caseId).case_result_id && item.evaluator_id === evaluatorId)!;

  test("a right refusal of an unanswerable case passes it; a refusal beside a claim, or answering an answerable case, judges nothing", () => {
    // "抱歉，资料中没有相关信息，无法回答。" says only that it cannot answer, and the case is answerable: false.
    assert.equal(caseOf("c_unans_zh").quality_status, "passed");
    // "资料中没有相关信息，但员工福利包括…" refuses and then states a claim of its own: reading it as a refusal is a heuristic.
    assert.equal(caseOf("c_unans_guess").quality_status, "unjudged");
    // The trace flags "not abstaining" on an answerable case with no gold data: a right call, but it says nothing of whether the answer is right.
    assert.equal(caseOf("c_answered_flag").quality_status, "unjudged");
    // The baseline answered the unanswerable question ("公司为每位员工提供宠物保险。"): failed then, passed now.
    assert.deepEqual(results.comparison.fixed_cases, ["c_unans_zh"]);
    assert.deepEqual(results.comparison.regressed_cases, []);
    // Task success by hand: passed c_unans_zh (1); with a verdict also failed c_blind, c_leave_zh and review_required
    // c_dup, c_review (5); unjudged c_unans_guess, c_answered_flag (2) are left out.
    assert.deepEqual(results.end_to_end.task_success, { succeeded: 1, with_verdict: 5, without_verdict: 2, unjudged: 2 });
    assert.match(candidate.stdout, /^\s+PASSED\s+c_unans_zh@1$/m);
  });

  test("JUnit: an evaluator error is an <error>, a case that needs review a failure, only an unjudged case is skipped", async () => {
    assert.deepEqual(await junitSchemaErrors(xml), { "JUnit.xsd": [], "junit-10.xsd": [] });
    const suite = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "" }).parse(xml).testsuites.testsuite[0] as { tests: string; failures: string; errors: string; skipped: string; testcase: JunitCase[] };
    const testcase = (name: string) => suite.testcase.find((item) => item.name === `${name}@1`)!;
    // c_dup (P0): its ranking lists express_01 twice, so the ranking evaluators refused it (invalid_evidence).
    assert.equal(testcase("c_dup").error?.type, "invalid_evidence");
    assert.match(testcase("c_dup").error!.message, /review required: 3 evaluation\(s\) errored \(invalid_evidence\)/);
    assert.match(testcase("c_dup").error!["#text"] ?? "", /\[retrieval\.ranking\] invalid input: retrieved_chunks lists chunk "express_01"/);
    assert.equal(testcase("c_dup").skipped, undefined);
    // c_review: the answer's claim is nowhere in the context (a heuristic signal), and no LLM judge looked at it.
    assert.equal(testcase("c_review").failure?.type, "review_required");
    assert.match(testcase("c_review").failure!["#text"] ?? "", /\[online\.groundedness\] needs review/);
    assert.equal(testcase("c_leave_zh").failure?.type, "failed");
    assert.equal(testcase("c_blind").failure?.type, "failed");
    for (const name of ["c_unans_guess", "c_answered_flag"]) assert.match(testcase(name).skipped?.message ?? "", /^verdict unjudged: /, name);
    const passed = testcase("c_unans_zh");
    assert.deepEqual([passed.failure, passed.error, passed.skipped], [undefined, undefined, undefined]);
    // 7 cases: failures c_blind, c_leave_zh, c_review; errors c_dup; skipped c_unans_guess, c_answered_flag; 1 passed.
    assert.deepEqual([suite.tests, suite.failures, suite.errors, suite.skipped].map(Number), [7, 3, 1, 2]);
  });

  test("no gold id of the blind case in the JSON's evaluations, stdout or JUnit; a regression case's own reasons stay", () => {
    const blind = results.evaluation_results.filter((item) => item.case_result_id === caseOf("c_blind").case_result_id);
    // The blind case's gold chunks are sick_01 (retrieved) and sick_02 (not), both of document hr_policy.
    for (const evaluation of blind) {
      assert.doesNotMatch(JSON.stringify([evaluation.reason, evaluation.evidence_refs]), /sick_0|hr_policy/, evaluation.evaluator_id);
    }
    // Its scores stay: one of its two gold evidence pieces retrieved → recall@k 0.5.
    assert.equal(evaluationOf("c_blind", "retrieval.ranking").metric_values.recall_at_k, 0.5);
    assert.equal(caseOf("c_blind").quality_status, "failed");
    // The case results keep what the blind case's trace observed (it retrieved sick_01); evaluations and printed text name no gold.
    assert.doesNotMatch(JSON.stringify(results.evaluation_results), /sick_0/);
    assert.doesNotMatch(candidate.stdout + candidate.stderr, /sick_0/);
    assert.doesNotMatch(xml, /sick_0/);
    // The control: c_leave_zh's gold document is hr_policy too, and its own reasons say so.
    assert.match(evaluationOf("c_leave_zh", "retrieval.ranking").reason, /gold evidence: chunk leave_01 of hr_policy not retrieved/);
  });

  test("report: the regression case's reasons that name hr_policy are shown, the blind case's gold is withheld", async () => {
    const report = path.join(folder, "report.html");
    // The trace shown in full is c_leave_zh's: its evaluations panel has no case column, the trace says whose it is.
    const reported = await runRagscope(["report", "--run", "candidate", "--trace-id", caseOf("c_leave_zh").trace_id, "--data-dir", dataDir, "--out", report]);
    assert.equal(reported.status, 0, reported.stdout + reported.stderr);
    const html = await readFile(report, "utf8");
    const rows = (html.match(/<tr>[\s\S]*?<\/tr>/g) ?? []).map((row) => row.replace(/<[^>]+>/g, " ").replace(/\s+/g, " "));
    const leaveRow = rows.find((row) => / c_leave_zh /.test(row) && /RETRIEVAL_MISS/.test(row));
    assert.ok(leaveRow, "the failing-cases row of c_leave_zh");
    assert.match(leaveRow, /RETRIEVAL_MISS: gold #1 \(chunk leave_01 of hr_policy\) not retrieved/);
    assert.doesNotMatch(leaveRow, /withheld/);
    // The selected trace's evaluations (c_leave_zh's) name hr_policy too.
    assert.ok(rows.some((row) => /^ ?retrieval\.ranking .*recall_at_k = 0 \(needs &gt;= 1\) — gold evidence: chunk leave_01 of hr_policy not retrieved/.test(row)), "the trace's retrieval.ranking row");
    // The control: the blind case's failing row quotes its gold, so it is withheld.
    const blindRow = rows.find((row) => / c_blind /.test(row));
    assert.ok(blindRow, "the failing-cases row of c_blind");
    assert.match(blindRow, /\(withheld: blind-split gold data\)/);
    assert.doesNotMatch(html, /sick_02|Unused sick days/);
  });

  test("citation.coverage of a one-sentence answer citing a chunk that does not support it: covered, and said to be unsupported", () => {
    const coverage = evaluationOf("c_review", "citation.coverage");
    // The answer's one sentence is the only place its citation (points_01) can belong: 1 of 1 sentences carry one.
    assert.equal(coverage.metric_values.citation_coverage, 1);
    assert.match(coverage.reason, /only sentence carries its citation \(points_01\), so it counts as cited, but restates none of the cited text: whether what it cites supports it is citation support's question/);
    assert.doesNotMatch(coverage.reason, /0 of 1 sentences carry a citation/);
  });
});
