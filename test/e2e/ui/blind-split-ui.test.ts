/**
 * A blind split's gold data is never shown (README "Splits", seed §二.2) —
 * not by the CLI, and not by `ragscope serve`'s web UI and read API either:
 * a developer with a UI token is whom a blind set hides its gold from. End to
 * end as users meet it: `ragscope serve --dataset` (a subprocess) holding a
 * blind case and a regression case, `ragscope eval --endpoint` (a subprocess)
 * sending both cases' traces to its OTLP receiver through the SDK's stage
 * wrappers (test/e2e/experiments/tasks/staged-rag-task.ts), then the read API
 * and the pages fetched over HTTP.
 *
 * Each case's gold — a reference answer, a key point, and gold evidence in a
 * document and chunk its retrieval did not return — is made of strings the
 * trace never carries, so any of them on a page came from the gold: the blind
 * case's appear in none of /api/traces/:id, the trace page and the review
 * page; the regression case's appear on each (the reader still shows gold
 * outside the blind split), and both cases keep their verdicts and scores.
 * The same for what each case is graded by — expected and forbidden
 * behaviour, rubric, citation requirement, context policy — which a developer
 * would tune to as surely as to an answer; the request's `context` (its input)
 * is shown for both.
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { startServeWithUi, type ServeWithUi } from "../../support/serve-with-ui.js";
import { runRagscope, tasksFolder } from "../experiments/support/run-ragscope.js";

const RUN = "blind-split-ui";

/** What the case is graded by: as much gold as its answer (contracts/blind-gold.ts). */
interface Criteria {
  expected: string;
  negative: string;
  rubric: string;
  citation: string;
  policy: string;
}

/** A case whose retrieval returns one chunk that is not its gold, and whose answer misses its gold answer. */
function scriptedCase(caseId: string, split: string, gold: { answer: string; keyPoint: string; document: string; chunk: string; text: string }, criteria: Criteria) {
  return {
    case_id: caseId,
    case_version: "1",
    input: `What does express shipping cost (${caseId})?`,
    reference_answer: gold.answer,
    key_points: [gold.keyPoint],
    gold_evidence: [{ document_id: gold.document, chunk_id: gold.chunk, text: gold.text }],
    expected_behavior: [criteria.expected],
    negative_behavior: [criteria.negative],
    // A prose rule for the judge, and a threshold the evaluation decides recall_at_5 by.
    rubric: { answer_correctness: criteria.rubric, recall_at_5: ">= 0.8" },
    citation_requirement: criteria.citation,
    context_policy: criteria.policy,
    // The request's input, not gold: shown for every case.
    context: { channel: `${caseId}-channel-shown` },
    metadata: {
      split,
      retrieve: [{ chunk: `${caseId}-seen-1`, document: `${caseId}-seen-doc`, text: "Orders ship from the central warehouse." }],
      answer: "Shipping is handled by the central warehouse.",
    },
  };
}

const BLIND_GOLD = { answer: "Blind express costs 7731 zorkmids.", keyPoint: "7731 zorkmids per parcel", document: "blind-gold-document-7731", chunk: "blind-gold-chunk-7731", text: "Express delivery is priced at 7731 zorkmids." };
const REGRESSION_GOLD = { answer: "Regression express costs 4419 florins.", keyPoint: "4419 florins per parcel", document: "regression-gold-document-4419", chunk: "regression-gold-chunk-4419", text: "Express delivery is priced at 4419 florins." };
const BLIND_CRITERIA: Criteria = { expected: "Quote the 5501 glorp surcharge", negative: "Mention the retired 5502 glorp rate", rubric: "Correct only when the 5503 glorp figure appears", citation: "Cite the 5504 glorp tariff sheet", policy: "Keep only the 5505 glorp price list" };
const REGRESSION_CRITERIA: Criteria = { expected: "Quote the 6601 quux surcharge", negative: "Mention the retired 6602 quux rate", rubric: "Correct only when the 6603 quux figure appears", citation: "Cite the 6604 quux tariff sheet", policy: "Keep only the 6605 quux price list" };
/**
 * A blind case in the seed's simple format (004 §二.1), whose gold documents the Eval Case keeps twice: in its gold
 * evidence and, as written, in metadata.relevant_document_ids (collector/wiring/dataset/simple-case.ts).
 */
const SIMPLE_BLIND_DOCUMENT = "blind-simple-gold-document-8812";
const simpleBlindCase = {
  id: "c_blind_simple",
  question: "What does express shipping cost (c_blind_simple)?",
  reference_answer: "Simple blind express costs 8812 zorkmids.",
  relevant_document_ids: [SIMPLE_BLIND_DOCUMENT],
  relevant_chunk_ids: ["blind-simple-gold-chunk-8812"],
  metadata: { split: "blind", retrieve: [{ chunk: "c_blind_simple-seen-1", document: "c_blind_simple-seen-doc", text: "Orders ship from the central warehouse." }], answer: "Shipping is handled by the central warehouse." },
};
const goldStrings = (gold: typeof BLIND_GOLD, criteria: Criteria) => [...Object.values(gold), ...Object.values(criteria)];

/** The trace page's threshold cells of the Evaluation Results. */
const thresholdCells = (page: string) => [...page.matchAll(/<td class="threshold">(.*?)<\/td>/g)].map((match) => match[1]);

/** The trace page's "gold?" cells of the retrieved chunks, in rank order. */
const goldCells = (page: string) => [...page.matchAll(/<td class="gold">(.*?)<\/td>/g)].map((match) => match[1]);

interface EvalOutput {
  case_results: { case_result_id: string; case_id: string; quality_status: string }[];
}

interface TraceAnswer {
  caseResult: { quality_status: string };
  evalCase: { context: Record<string, unknown> } | null;
  evaluationResults: { evaluator_id: string; metric_values: Record<string, number | null>; outcome: string; reason: string }[];
}

describe("ragscope serve: the web UI and read API withhold a blind case's gold", () => {
  let folder: string;
  let serve: ServeWithUi | null = null;
  const caseResultIds = new Map<string, string>();
  const verdicts = new Map<string, string>();

  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-blind-split-ui-"));
    const dataset = path.join(folder, "cases.json");
    await writeFile(dataset, JSON.stringify({ dataset_id: "blind_ui", dataset_version: "v1", cases: [scriptedCase("c_blind", "blind", BLIND_GOLD, BLIND_CRITERIA), scriptedCase("c_regression", "regression", REGRESSION_GOLD, REGRESSION_CRITERIA), simpleBlindCase] }));
    serve = await startServeWithUi(path.join(folder, "serve-store"), { RAGSCOPE_QUIET_PERIOD_MS: "300" }, { arguments: ["--dataset", dataset], readyLine: /Eval Cases loaded/, timeoutMs: 60_000 });
    const output = path.join(folder, "results.json");
    const evaluated = await runRagscope(["eval", "--dataset", dataset, "--task", path.join(tasksFolder, "staged-rag-task.ts"), "--run-id", RUN, "--endpoint", serve.receiverUrl, "--read-api", serve.uiUrl, "--output", output, "--data-dir", path.join(folder, "unused")]);
    assert.notEqual(evaluated.status, 2, evaluated.stdout + evaluated.stderr);
    const results = JSON.parse(await readFile(output, "utf8")) as EvalOutput;
    for (const item of results.case_results) {
      caseResultIds.set(item.case_id, item.case_result_id);
      verdicts.set(item.case_id, item.quality_status);
    }
    assert.equal(caseResultIds.size, 3, evaluated.stdout + evaluated.stderr);
  });
  after(async () => {
    await serve?.stop();
    await rm(folder, { recursive: true, force: true });
  });

  async function shown(caseId: string) {
    const id = encodeURIComponent(caseResultIds.get(caseId)!);
    const [api, tracePage, reviewPage] = await Promise.all([fetch(`${serve!.uiUrl}/api/traces/${id}`), fetch(`${serve!.uiUrl}/traces/${id}`), fetch(`${serve!.uiUrl}/review/${id}`)]);
    assert.deepEqual([api.status, tracePage.status, reviewPage.status], [200, 200, 200]);
    const apiText = await api.text();
    return { api: JSON.parse(apiText) as TraceAnswer, surfaces: { "/api/traces/:id": apiText, "the trace page": await tracePage.text(), "the review page": await reviewPage.text() } };
  }

  test("the blind case: no gold value in the trace API, the trace page or the review page; its verdict and scores stay", async () => {
    const { api, surfaces } = await shown("c_blind");
    const leaks = Object.entries(surfaces).flatMap(([surface, text]) => goldStrings(BLIND_GOLD, BLIND_CRITERIA).filter((gold) => text.includes(gold)).map((gold) => `${surface} shows "${gold}"`));
    assert.deepEqual(leaks, [], "the blind case's gold is shown");
    // Nor the rubric's thresholds: the API has no rubric, and the page shows no default in place of the withheld one.
    assert.ok(!surfaces["/api/traces/:id"].includes(">= 0.8") && !surfaces["/api/traces/:id"].includes('"rubric"'), surfaces["/api/traces/:id"]);
    assert.deepEqual([...new Set(thresholdCells(surfaces["the trace page"]))], ['<span class="muted">withheld (blind split)</span>']);
    // The request's context is its input, not gold: it stays.
    assert.deepEqual(api.evalCase?.context, { channel: "c_blind-channel-shown" });
    assert.equal(api.caseResult.quality_status, verdicts.get("c_blind"));
    // Scores stay: the gold-dependent retrieval metric is measured (its gold chunk was not retrieved) and shown.
    const recall = api.evaluationResults.find((item) => "recall_at_5" in item.metric_values);
    assert.equal(recall?.metric_values.recall_at_5, 0);
    assert.ok(api.evaluationResults.every((item) => item.reason === "(blind split: reason withheld so no gold data is shown)"));
    // Which retrieved chunk holds gold evidence would name the gold: the page says it is withheld, not "no".
    assert.deepEqual(goldCells(surfaces["the trace page"]), ['<span class="muted">withheld (blind split)</span>']);
    // The failed case's root cause is attributed; its explanation names the missing evidence, so it is withheld too.
    assert.match(surfaces["the trace page"], /<p class="muted" id="root-cause-withheld">\(blind split: reason withheld so no gold data is shown\)<\/p>/);
  });

  test("a blind case in the simple format: its gold documents, kept in its metadata too, are shown nowhere", async () => {
    const { surfaces } = await shown("c_blind_simple");
    const leaks = Object.entries(surfaces).flatMap(([surface, text]) => [SIMPLE_BLIND_DOCUMENT, ...simpleBlindCase.relevant_chunk_ids, simpleBlindCase.reference_answer].filter((gold) => text.includes(gold)).map((gold) => `${surface} shows "${gold}"`));
    assert.deepEqual(leaks, [], "the blind case's gold is shown");
    // Its other metadata (the split, the task's script) is no gold and stays.
    assert.match(surfaces["/api/traces/:id"], /"split":"blind"/);
  });

  test("the regression case: its gold is shown on every surface, so a page that dropped all gold would fail the test above for the wrong reason", async () => {
    const { api, surfaces } = await shown("c_regression");
    assert.ok(surfaces["/api/traces/:id"].includes(REGRESSION_GOLD.answer) && surfaces["/api/traces/:id"].includes(REGRESSION_GOLD.chunk));
    // Its criteria too, and the page its rubric's threshold, so the blind case's test fails only for what it withholds.
    assert.deepEqual(Object.values(REGRESSION_CRITERIA).filter((criterion) => !surfaces["/api/traces/:id"].includes(criterion)), []);
    assert.ok(thresholdCells(surfaces["the trace page"]).some((cell) => cell?.includes("recall_at_5 &gt;= 0.8 (case rubric)")), thresholdCells(surfaces["the trace page"]).join("\n"));
    assert.deepEqual(api.evalCase?.context, { channel: "c_regression-channel-shown" });
    // The pages show it through the evaluators' reasons, which name the gold evidence the retrieval missed.
    for (const surface of ["the trace page", "the review page"] as const) {
      assert.ok(goldStrings(REGRESSION_GOLD, REGRESSION_CRITERIA).some((gold) => surfaces[surface].includes(gold)), `${surface} shows none of the regression case's gold`);
    }
    assert.deepEqual(goldCells(surfaces["the trace page"]), ["no"]);
    assert.match(surfaces["the trace page"], /id="root-cause-label"/);
    assert.equal(api.caseResult.quality_status, verdicts.get("c_regression"));
  });
});
