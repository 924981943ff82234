/**
 * A blind case's grading criteria are gold like its reference answer (README
 * "Splits", seed 004 §二.2: a blind set guards against tuning to the
 * evaluation set, and a developer who reads what the judge grades by tunes to
 * it): its expected and forbidden behaviour, rubric, citation requirement and
 * context policy are printed nowhere — the terminal, `--output` JSON, the
 * JUnit file, `ragscope report` — and neither is an LLM judge's reason for
 * it, which may restate them in its own words.
 *
 * As a user meets it: `ragscope eval` and `ragscope report` as subprocesses,
 * the judge an OpenAI-compatible endpoint (a local fake) judging
 * context_precision_judged. Its reason for each case quotes that case's
 * expected behaviour word for word and adds a paraphrase: a marker
 * (BLINDPARAPHRASE) no string of the case holds, so only withholding a blind
 * case's reasons as a whole keeps it out. The dev case carries the same
 * criteria under DEVCRITERIA, which are printed — so a leak would be seen.
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { reply, startFakeChatCompletionsServer, type FakeChatCompletionsServer } from "../../support/fake-chat-completions-server.js";
import { runRagscope, tasksFolder } from "./support/run-ragscope.js";

let folder: string;
let judge: FakeChatCompletionsServer;

/** A case whose retrieval returns its evidence and two off-topic chunks, with criteria marked by `marker`. */
function criteriaCase(caseId: string, split: string, marker: string) {
  const evidence = `Express delivery costs ${caseId === "c_blind" ? 7731 : 4419} zorkmids.`;
  return {
    case_id: caseId,
    case_version: "1",
    input: `What does express delivery cost (${caseId})?`,
    reference_answer: evidence,
    gold_evidence: [{ document_id: `${caseId}-prices`, chunk_id: `${caseId}-price-1`, text: evidence }],
    expected_behavior: [`${marker}-expected state the express price per parcel`],
    negative_behavior: [`${marker}-negative quote the retired standard price`],
    rubric: { context_precision_judged: `${marker}-rubric only the price chunk is relevant` },
    citation_requirement: `${marker}-citation cite the price list in force`,
    context_policy: `${marker}-policy keep only the current price list`,
    metadata: {
      split,
      retrieve: [
        { chunk: `${caseId}-price-1`, document: `${caseId}-prices`, text: evidence },
        { chunk: `${caseId}-cafeteria`, document: "facilities", text: "The cafeteria opens at noon on weekdays." },
        { chunk: `${caseId}-parking`, document: "facilities", text: "Parking permits are renewed every March." },
      ],
      answer: evidence,
    },
  };
}

before(async () => {
  folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-blind-criteria-"));
  judge = await startFakeChatCompletionsServer();
  // Rates only the first document relevant (1/3, below the default 0.5: the judge fails both cases), and gives as its
  // reason the case's expected behaviour — as a judge shown the criteria would — with a paraphrase of it.
  judge.respondWith((request) => {
    const labels = [...request.user.matchAll(/<<<DOCUMENT id="(D\d+)">>>/g)].map((match) => match[1]!);
    const marker = request.user.includes("(c_blind)") ? "BLINDCRITERIA" : "DEVCRITERIA";
    const paraphrase = marker === "BLINDCRITERIA" ? "BLINDPARAPHRASE" : "DEVPARAPHRASE";
    return reply.json({ documents: labels.map((id, index) => ({ id, relevant: index === 0 })), reason: `expected "${marker}-expected state the express price per parcel"; ${paraphrase} the parcel price is what counts`, confidence: "high" });
  });
});

after(async () => {
  await judge.close();
  await rm(folder, { recursive: true, force: true });
});

test("a blind case's expected and forbidden behaviour, rubric and judge reasons are printed nowhere; a dev case's are", async () => {
  const dataset = path.join(folder, "criteria.json");
  await writeFile(dataset, JSON.stringify({ dataset_id: "criteria_set", dataset_version: "1", cases: [criteriaCase("c_blind", "blind", "BLINDCRITERIA"), criteriaCase("c_dev", "dev", "DEVCRITERIA")] }));
  const dataDir = path.join(folder, "store");
  const output = path.join(folder, "results.json");
  const junit = path.join(folder, "results.xml");
  const environment = { RAGSCOPE_JUDGE_BASE_URL: judge.baseUrl, RAGSCOPE_JUDGE_MODEL: "fake-judge", RAGSCOPE_JUDGE_API_KEY: "sk-test", RAGSCOPE_JUDGE_METRICS: "context_precision_judged" };
  const evaluated = await runRagscope(["eval", "--dataset", dataset, "--task", path.join(tasksFolder, "scripted-rag-task.ts"), "--run-id", "criteria", "--data-dir", dataDir, "--output", output, "--junit", junit], environment);
  assert.equal(evaluated.status, 1, evaluated.stdout + evaluated.stderr);
  const report = path.join(folder, "report.html");
  const reported = await runRagscope(["report", "--run", "criteria", "--data-dir", dataDir, "--out", report]);
  assert.equal(reported.status, 0, reported.stdout + reported.stderr);

  const outputs = { terminal: evaluated.stdout + evaluated.stderr, json: await readFile(output, "utf8"), junit: await readFile(junit, "utf8"), report: await readFile(report, "utf8"), "report's terminal": reported.stdout + reported.stderr };
  const leaks = Object.entries(outputs).flatMap(([surface, text]) => ["BLINDCRITERIA", "BLINDPARAPHRASE"].filter((marker) => text.includes(marker)).map((marker) => `${surface} shows ${marker}`));
  assert.deepEqual(leaks, [], "a blind case's criteria or judge reason is printed");
  // The control: the dev case's judge reason, quoting its criteria and paraphrasing them, is printed on every surface.
  for (const [surface, text] of Object.entries(outputs)) {
    if (surface === "report's terminal") continue;
    assert.ok(text.includes("DEVCRITERIA-expected") && text.includes("DEVPARAPHRASE"), `${surface} does not show the dev case's judge reason`);
  }

  // Both cases keep their verdicts and the judge's scores.
  const results = JSON.parse(outputs.json) as { case_results: { case_id: string; case_result_id: string; quality_status: string }[]; evaluation_results: { case_result_id: string; evaluator_id: string; outcome: string; metric_values: Record<string, number | null> }[] };
  for (const caseId of ["c_blind", "c_dev"]) {
    const caseResult = results.case_results.find((item) => item.case_id === caseId)!;
    assert.equal(caseResult.quality_status, "failed", caseId);
    const judged = results.evaluation_results.find((item) => item.case_result_id === caseResult.case_result_id && item.evaluator_id === "judge.context_precision_judged");
    assert.deepEqual([judged?.outcome, judged?.metric_values.context_precision_judged], ["failed", 1 / 3], caseId);
  }
  assert.match(reported.stdout, /table cells withheld: they quote gold data of blind-split cases/);
});
