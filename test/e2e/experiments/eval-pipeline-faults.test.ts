/**
 * What `ragscope eval` says of a RAG pipeline whose stages go wrong, as a
 * user meets it: the CLI as a subprocess with a task that runs every stage
 * through the SDK's wrappers as an application does
 * (tasks/staged-rag-task.ts: retrieve, rerank, context with a budget, generate,
 * cite), --output read back, and `ragscope gate` over the store.
 *
 * - A request whose reranker threw has no answer: it is a failed case, with
 *   its execution error as the root cause, though retrieval.ranking passed on
 *   what it recorded before the throw (README "Verdicts": only something able
 *   to judge the case passes it; a request whose task threw is a failed case).
 * - Evidence density and context precision measure the prompt: a gold chunk
 *   cut by the budget before its evidence sentence holds no evidence there
 *   (seed 004 §四: 有效证据 Token 数 / 上下文总 Token 数).
 * - Root causes (seed 004 §十): the cut is CONTEXT_TRUNCATED, not RERANK_BAD;
 *   a rerank that put the distractor the answer follows above the gold is
 *   RERANK_BAD; a citation outside the context is CITATION_ERROR, the overlap
 *   heuristic deciding nothing; a failure no step explains is UNATTRIBUTED,
 *   not a misunderstood question.
 * - Retrieval reasons after a rerank give both ranks.
 * - Equal durations in other units agree; citation markers are not answer
 *   text; performance.usage names no span as evidence.
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { runRagscope, tasksFolder, type Finished } from "./support/run-ragscope.js";

interface Evaluation {
  case_result_id: string;
  evaluator_id: string;
  outcome: string;
  reason: string;
  evidence_refs: string[];
  metric_values: Record<string, number | null>;
}

interface Results {
  case_results: { case_id: string; case_result_id: string; quality_status: string; execution_status: string; execution_error: { type: string; message: string | null } }[];
  evaluation_results: Evaluation[];
  end_to_end: { task_success: { succeeded: number; with_verdict: number; without_verdict: number; unjudged: number } };
}

/** 34 characters, 6 tokens (staff, badges, open, the, north, door). */
const FILLER = "Staff badges open the north door. ";
/** 87 characters, 15 tokens. */
const CARRY_OVER = "Employees may carry over at most five unused vacation days into the next calendar year.";
/** 46 characters, 8 tokens (travel, must, be, booked, through, the, travel, desk). */
const TRAVEL = "Travel must be booked through the travel desk.";

const chunk = (id: string, document: string, text: string) => ({ chunk: id, document, text });

const cases = [
  {
    // The reranker throws: the task throws, nothing is answered.
    case_id: "c_crash",
    input: "How fast is a refund?",
    reference_answer: "Refunds reach the original payment method within 7 days.",
    gold_evidence: [{ document_id: "refund-policy", chunk_id: "refund-1", text: "Refunds reach the original payment method within 7 days." }],
    metadata: { retrieve: [chunk("refund-1", "refund-policy", "Refunds reach the original payment method within 7 days."), chunk("points-1", "member-points", "Member points expire 12 months after they are earned.")], rerank: "throw", answer: "never given" },
  },
  {
    // handbook-1: 200 fillers (6,800 characters) then the evidence. The rerank keeps it first; the 1,200-character budget cuts it.
    case_id: "c_cut",
    input: "How many vacation days can I carry over?",
    reference_answer: "At most five unused vacation days.",
    gold_evidence: [{ document_id: "handbook", chunk_id: "handbook-1", text: CARRY_OVER }],
    metadata: {
      retrieve: [chunk("handbook-1", "handbook", FILLER.repeat(200) + CARRY_OVER), chunk("travel-1", "travel", TRAVEL)],
      rerank: ["handbook-1", "travel-1"],
      context: { chunks: ["handbook-1"], budget: 1200 },
      answer: "The handbook does not say how many days carry over.",
    },
  },
  {
    // handbook-2 opens with the evidence; packed after travel-1, the budget cuts it after the evidence.
    case_id: "c_cut_kept",
    input: "How many vacation days can I carry over?",
    reference_answer: "At most five unused vacation days.",
    gold_evidence: [{ document_id: "handbook", chunk_id: "handbook-2", text: CARRY_OVER }],
    metadata: {
      retrieve: [chunk("handbook-2", "handbook", `${CARRY_OVER} ${FILLER.repeat(200)}`), chunk("travel-1", "travel", TRAVEL)],
      context: { chunks: ["travel-1", "handbook-2"], budget: 1200 },
      answer: CARRY_OVER,
    },
  },
  {
    // The retriever ranks the gold inv-1 first; the reranker moves it to third, below quote-1, which the answer follows.
    case_id: "c_demoted",
    input: "When is an invoice due?",
    reference_answer: "Invoices are due within 30 days of issue.",
    gold_evidence: [{ document_id: "invoices", chunk_id: "inv-1", text: "Invoices are due within 30 days of issue." }],
    metadata: {
      retrieve: [chunk("inv-1", "invoices", "Invoices are due within 30 days of issue."), chunk("quote-1", "quotes", "Quotes are valid for 60 days after they are sent."), chunk("po-1", "orders", "Purchase orders need a manager's approval.")],
      rerank: ["quote-1", "po-1", "inv-1"],
      answer: "Invoices are due within 60 days after they are sent.",
    },
  },
  {
    // Right, in the evidence's words ("一半"), and the reference says 50%: number agreement fails, and nothing explains why.
    case_id: "c_unexplained",
    input: "部分退款退多少？",
    reference_answer: "退款金额为订单的50%。",
    gold_evidence: [{ document_id: "refund", chunk_id: "refund-half", text: "退款金额为订单金额的一半。" }],
    metadata: { retrieve: [chunk("refund-half", "refund", "退款金额为订单金额的一半。")], answer: "退款金额为订单金额的一半。" },
  },
  {
    // The seed's own pair (004 §二): reference "满一年", evidence "满12个月".
    case_id: "c_year_months",
    input: "公司的年假政策是什么？",
    reference_answer: "员工工作满一年后享有5天带薪年假。",
    gold_evidence: [{ document_id: "hr", chunk_id: "hr-1", text: "员工连续工作满12个月后，每年享有5天带薪年假。" }],
    metadata: { retrieve: [chunk("hr-1", "hr", "员工连续工作满12个月后，每年享有5天带薪年假。")], answer: "员工连续工作满12个月后，每年享有5天带薪年假。" },
  },
  {
    case_id: "c_week_days",
    input: "How long until a refund reaches my card?",
    reference_answer: "Refunds reach your card within 1 week.",
    gold_evidence: [{ document_id: "refunds", chunk_id: "refund-week", text: "Refunds reach your card within 7 days." }],
    metadata: { retrieve: [chunk("refund-week", "refunds", "Refunds reach your card within 7 days.")], answer: "Refunds reach your card within 7 days." },
  },
  {
    case_id: "c_hours_day",
    input: "客服多久回复？",
    reference_answer: "客服会在24小时内回复。",
    gold_evidence: [{ document_id: "support", chunk_id: "support-1", text: "客服会在1天内回复。" }],
    metadata: { retrieve: [chunk("support-1", "support", "客服会在1天内回复。")], answer: "客服会在1天内回复。" },
  },
  {
    // A month is 28 to 31 days: 1 month and 30 days are not the same duration.
    case_id: "c_month_days",
    input: "When do points expire?",
    reference_answer: "Points expire after 1 month.",
    gold_evidence: [{ document_id: "points", chunk_id: "points-30", text: "Points expire after 30 days." }],
    metadata: { retrieve: [chunk("points-30", "points", "Points expire after 30 days.")], answer: "Points expire after 30 days." },
  },
  {
    case_id: "c_marker",
    input: "How fast is a refund?",
    reference_answer: "Refunds reach the original payment method within 7 days.",
    gold_evidence: [{ document_id: "refund-policy", chunk_id: "refund-1", text: "Refunds reach the original payment method within 7 days." }],
    metadata: { retrieve: [chunk("refund-1", "refund-policy", "Refunds reach the original payment method within 7 days.")], answer: "Refunds reach the original payment method within 7 days [refund-1].", cite: ["refund-1"] },
  },
  {
    // A cited chunk id without a separator, in brackets: a marker because the trace cited it.
    case_id: "c_marker_cited_id",
    input: "How fast is a refund?",
    reference_answer: "Refunds reach the original payment method within 7 days.",
    gold_evidence: [{ document_id: "refund-policy", chunk_id: "refund1", text: "Refunds reach the original payment method within 7 days." }],
    metadata: { retrieve: [chunk("refund1", "refund-policy", "Refunds reach the original payment method within 7 days.")], answer: "Refunds reach the original payment method within 7 days [refund1].", cite: ["refund1"] },
  },
  {
    // No gold data: a made-up fact, and a citation of a chunk that was never in the context.
    case_id: "c_cites_outside",
    input: "What does express shipping cost?",
    metadata: { retrieve: [chunk("ship-1", "shipping", "Standard shipping costs five dollars.")], answer: "Express shipping costs 40 dollars and arrives by drone.", cite: ["ship-9"] },
  },
  {
    // The answer's number contradicts the reference, and the context states neither: the overlap reading labels it, and says so.
    case_id: "c_made_up",
    input: "What does express shipping cost?",
    reference_answer: "Express shipping costs 12 dollars.",
    metadata: { retrieve: [chunk("ship-2", "shipping", "Express shipping is available for all orders.")], answer: "Express shipping costs 40 dollars and arrives by drone." },
  },
].map((item) => ({ case_version: "1", ...item }));

describe("ragscope eval: a pipeline that throws, cuts, reranks and cites badly", () => {
  let folder: string;
  let dataDir: string;
  let evaluated: Finished;
  let results: Results;

  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-pipeline-faults-"));
    dataDir = path.join(folder, "store");
    const dataset = path.join(folder, "faults.json");
    await writeFile(dataset, JSON.stringify({ dataset_id: "faults", dataset_version: "1", cases }));
    const output = path.join(folder, "results.json");
    evaluated = await runRagscope(["eval", "--dataset", dataset, "--task", path.join(tasksFolder, "staged-rag-task.ts"), "--run-id", "faults", "--data-dir", dataDir, "--output", output]);
    // Cases failed: the gate blocks (exit 1), it did decide.
    assert.equal(evaluated.status, 1, evaluated.stdout + evaluated.stderr);
    results = JSON.parse(await readFile(output, "utf8")) as Results;
  });

  after(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  const caseOf = (caseId: string) => results.case_results.find((item) => item.case_id === caseId)!;
  const evaluationOf = (caseId: string, evaluatorId: string) => results.evaluation_results.find((item) => item.case_result_id === caseOf(caseId).case_result_id && item.evaluator_id === evaluatorId)!;
  const rootCauseOf = (caseId: string) => evaluationOf(caseId, "root_cause")?.reason ?? "(none)";

  test("a request whose reranker threw is a failed case with its execution error as the root cause, though a check of its retrieval passed", () => {
    const crash = caseOf("c_crash");
    assert.deepEqual([crash.execution_status, crash.execution_error.type], ["failed", "system_error"]);
    // retrieval.ranking still passed on what the trace recorded before the throw (refund-1 at rank 1): a check of a request, not of an answer.
    assert.equal(evaluationOf("c_crash", "retrieval.ranking").outcome, "passed");
    assert.equal(crash.quality_status, "failed");
    assert.equal(rootCauseOf("c_crash"), "SYSTEM_ERROR: the request did not complete (system_error in rag.rerank): reranker backend unavailable (HTTP 503)");
    assert.match(evaluated.stdout, /^\s+FAILED\s+c_crash@1\s+task system_error: reranker backend unavailable \(HTTP 503\)$/m);
  });

  test("the run's counts: the crashed request is a failure everywhere, never a pass", async () => {
    // By hand: passed c_cut_kept, c_year_months, c_week_days, c_hours_day, c_marker, c_marker_cited_id (6); failed c_crash,
    // c_cut, c_demoted, c_unexplained, c_month_days, c_cites_outside, c_made_up (7).
    assert.match(evaluated.stdout, /^Run faults: 13 cases — 6 passed, 7 failed, 0 need review, 0 unjudged, 0 not evaluated; 1 task failures$/m);
    assert.deepEqual(results.end_to_end.task_success, { succeeded: 6, with_verdict: 13, without_verdict: 0, unjudged: 0 });
    const gate = await runRagscope(["gate", "--run", "faults", "--data-dir", dataDir]);
    assert.match(gate.stdout, /Case verdicts: 6 passed \(judged\), 7 failed, 0 need review, 0 unjudged, 0 not evaluated/, gate.stdout + gate.stderr);
    // The report reads the dashboards' queries over the store: the same counts, and task success 6 of 13.
    const report = await runRagscope(["report", "--data-dir", dataDir, "--run", "faults", "--out", path.join(folder, "report.html")]);
    assert.equal(report.status, 0, report.stdout + report.stderr);
    assert.match(report.stdout, /Verdicts over the range: Passed \(judged\) 6 · Failed 7 · Needs review 0 · Unjudged 0 · Not evaluated 0/);
    assert.match(report.stdout, /Task success 46\.2%/);
  });

  test("a gold chunk cut before its evidence: evidence density and context precision are 0, measured on the prompt", () => {
    // The context is handbook-1's first 1,200 characters: 35 fillers (1,190 characters, 210 tokens) and "Staff badg" —
    // "staff" whole, "badg" a word the cut split: 211 tokens, none of the evidence, which starts at character 6,800.
    // handbook-1 has 200 × 6 + 15 = 1,215 tokens.
    const density = evaluationOf("c_cut", "context.density");
    assert.equal(density.metric_values.evidence_density, 0);
    assert.equal(density.reason, "0 of 211 context tokens are in chunks holding gold evidence; handbook-1 was cut to fit: 211 of its 1215 tokens are in the prompt, and they hold no gold evidence");
    // 0 of 1 packed chunks holds evidence in the prompt; the evidence did not reach it.
    assert.deepEqual(evaluationOf("c_cut", "context.coverage").metric_values, { context_recall: 0, context_precision: 0 });
  });

  test("a chunk cut after its evidence still holds it, and counts only the tokens the prompt kept", () => {
    // The prompt: travel-1 (46 characters, 8 tokens), a line break, then handbook-2's first 1,153 characters: the evidence
    // and a space (88, 15 tokens), 31 fillers (1,054, 186 tokens), "Staff badge" ("staff" whole; "badge" split from
    // "badges"): 202 tokens. Density = 202 / (8 + 202) = 0.9619…; precision = 1 of 2 packed chunks.
    const density = evaluationOf("c_cut_kept", "context.density");
    assert.equal(density.metric_values.evidence_density, 202 / 210);
    assert.match(density.reason, /^202 of 210 context tokens are in chunks holding gold evidence; handbook-2 was cut to fit: 202 of its 1215 tokens are in the prompt$/);
    assert.deepEqual(evaluationOf("c_cut_kept", "context.coverage").metric_values, { context_recall: 1, context_precision: 0.5 });
  });

  test("root causes: the cut is CONTEXT_TRUNCATED, the demoting rerank RERANK_BAD", () => {
    // handbook-1 was first before the rerank and after it, and it was packed: the budget lost the evidence, not the rerank.
    assert.equal(rootCauseOf("c_cut"), "CONTEXT_TRUNCATED: gold #1 in handbook-1 cut [evidence_truncated=1, evidence_truncated_rate=1, context_recall=0]");
    // NDCG@10 with the grade 3 as gain: 3/log2(2) / 3 = 1 before; 3/log2(4) / 3 = 0.5 after; uplift −0.5. The answer's 9
    // bigrams: quote-1 holds 5 (60 days, days after, after they, they are, are sent) = 0.56, inv-1 3 = 0.33.
    assert.equal(evaluationOf("c_demoted", "retrieval.uplift").metric_values.rerank_uplift, -0.5);
    assert.equal(
      rootCauseOf("c_demoted"),
      "RERANK_BAD: heuristic reading of the texts, not a verdict — gold #1 (chunk inv-1 of invoices) was at rank 1 before the rerank and at rank 3 after, and the rerank moved quote-1 from rank 2 to 1, above it; the answer follows quote-1 (0.56 of its bigrams) more than the evidence inv-1 (0.33); failed: answer.fact_agreement [rerank_uplift=-0.5, ndcg_at_10=0.5]",
    );
  });

  test("root causes: a citation outside the context is CITATION_ERROR; an overlap reading that labels says it is one; nothing explained is UNATTRIBUTED", () => {
    // The claim's "40" is nowhere in the context: heuristic_groundedness 0 of 1 claims — a measurement, which fails nothing.
    assert.equal(evaluationOf("c_cites_outside", "online.groundedness").metric_values.heuristic_groundedness, 0);
    assert.equal(rootCauseOf("c_cites_outside"), "CITATION_ERROR: failed: citation.accuracy [citation_validity=0]");
    assert.equal(
      rootCauseOf("c_made_up"),
      'HALLUCINATION: heuristic reading of the texts, not a verdict — not supported by the context: "Express shipping costs 40 dollars and arrives by drone"; failed: answer.fact_agreement [heuristic_groundedness=0]',
    );
    // 50 % is missing from "一半", and neither the context nor any check shows why: no label is guessed.
    assert.equal(rootCauseOf("c_unexplained"), "UNATTRIBUTED: no step of the procedure found a cause; failed: answer.fact_agreement: number_agreement = 0 (needs >= 1)");
  });

  test("retrieval reasons say which list: after a rerank both ranks, without one the retriever's", () => {
    assert.equal(evaluationOf("c_demoted", "retrieval.ranking").reason, "gold evidence: chunk inv-1 of invoices ranked 3 after the rerank (1 before; matched by chunk_id)");
    assert.match(evaluationOf("c_demoted", "retrieval.coverage").reason, /^a gold document in the top 5 after the rerank \(inv-1\); 1 retrieved chunk\(s\) hold gold evidence; the first at rank 3 after the rerank$/);
    assert.equal(evaluationOf("c_marker", "retrieval.ranking").reason, "gold evidence: chunk refund-1 of refund-policy retrieved at rank 1 (matched by chunk_id)");
  });

  test("number agreement: equal durations in other units agree (1年 = 12个月, 1 week = 7 days, 24小时 = 1天), 1 month and 30 days do not", () => {
    // 满一年 and 5天 in the reference; 12个月 and 5天 in the answer: both agree, 2 of 2.
    assert.equal(evaluationOf("c_year_months", "answer.fact_agreement").metric_values.number_agreement, 1);
    assert.equal(caseOf("c_year_months").quality_status, "passed");
    assert.equal(evaluationOf("c_week_days", "answer.fact_agreement").metric_values.number_agreement, 1);
    assert.equal(evaluationOf("c_hours_day", "answer.fact_agreement").metric_values.number_agreement, 1);
    const month = evaluationOf("c_month_days", "answer.fact_agreement");
    assert.equal(month.metric_values.number_agreement, 0);
    assert.match(month.reason, /number 1 month \("1 month"\) missing/);
  });

  test("citation markers are not answer text: a verbatim answer with [refund-1] or a cited [refund1] matches the reference", () => {
    // Without the marker the answer's 9 tokens are the reference's 9: every score is 1.
    for (const caseId of ["c_marker", "c_marker_cited_id"]) {
      const match = evaluationOf(caseId, "answer.reference_match").metric_values;
      assert.deepEqual([match.exact_match, match.token_f1, match.rouge_l, match.bleu, match.cmrc_f1, match.cmrc_exact_match], [1, 1, 1, 1, 1, 1], caseId);
    }
  });

  test("performance.usage names no span as evidence; evidence refs name chunks", () => {
    for (const evaluation of results.evaluation_results.filter((item) => item.evaluator_id === "performance.usage")) assert.deepEqual(evaluation.evidence_refs, []);
    const refs = results.evaluation_results.flatMap((item) => item.evidence_refs);
    assert.deepEqual(
      refs.filter((ref) => /^chunk:\/\/rag\./.test(ref)),
      [],
    );
  });
});
