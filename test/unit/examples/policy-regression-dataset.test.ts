/**
 * The policy-regression dataset replayed through the policy assistant with no
 * tracer provider registered (the SDK wrappers record nothing): every case
 * runs, and the designed failures (examples/README.md) happen exactly as
 * designed — the seed's Case Result first of all.
 */
import { before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { evalCase, type EvalCase, type GoldEvidence } from "../../../contracts/eval-case.js";
import { replayForCase } from "../../../examples/policy-assistant/case-request.js";
import { createPolicyAssistant, type PolicyAnswer, type RetrievedChunkView } from "../../../examples/policy-assistant/create-policy-assistant.js";
import { loadBundledCorpus } from "../../../examples/policy-assistant/corpus/policy-corpus.js";
import { ABSTENTION_CHINESE, ABSTENTION_ENGLISH } from "../../../examples/policy-assistant/pipeline/extractive-generator.js";

const datasetPath = fileURLToPath(new URL("../../../examples/datasets/policy-regression.yaml", import.meta.url));
const corpus = loadBundledCorpus();
const chunkText = new Map(corpus.chunks.map((chunk) => [chunk.chunk_id, chunk.text]));

interface DatasetFile {
  dataset_id: string;
  dataset_version: string;
  cases: Record<string, unknown>[];
}

function readDataset(): { header: DatasetFile; cases: EvalCase[] } {
  const header = parse(readFileSync(datasetPath, "utf8")) as DatasetFile;
  const cases = header.cases.map((raw) =>
    evalCase.parse({ ...raw, dataset_id: raw.dataset_id ?? header.dataset_id, dataset_version: raw.dataset_version ?? header.dataset_version }),
  );
  return { header, cases };
}

/** Gold evidence matching as the seed reads it: chunk id when given, else document + section (+ version). */
function holdsEvidence(chunk: RetrievedChunkView, evidence: GoldEvidence): boolean {
  if (evidence.chunk_id !== undefined) return chunk.chunkId === evidence.chunk_id;
  if (chunk.documentId !== evidence.document_id) return false;
  if (evidence.document_version !== undefined && chunk.documentVersion !== evidence.document_version) return false;
  return evidence.section_id === undefined || chunk.sectionId === evidence.section_id;
}

function firstEvidenceRank(result: PolicyAnswer, gold: readonly GoldEvidence[]): number | null {
  const hit = result.retrieved.find((chunk) => gold.some((evidence) => holdsEvidence(chunk, evidence)));
  return hit?.rank ?? null;
}

function goldChunkIds(result: PolicyAnswer, gold: readonly GoldEvidence[]): string[] {
  return result.retrieved.filter((chunk) => gold.some((evidence) => holdsEvidence(chunk, evidence))).map((chunk) => chunk.chunkId);
}

const { header, cases } = readDataset();
const byId = new Map(cases.map((item) => [item.case_id, item]));
const results = new Map<string, PolicyAnswer>();

function caseNamed(caseId: string): EvalCase {
  const found = byId.get(caseId);
  assert.ok(found, `the dataset has case ${caseId}`);
  return found;
}

function resultOf(caseId: string): PolicyAnswer {
  const found = results.get(caseId);
  assert.ok(found, `case ${caseId} was run`);
  return found;
}

before(async () => {
  const assistant = createPolicyAssistant();
  for (const item of cases) {
    const replay = replayForCase(item, "run_unit_policy_regression");
    results.set(item.case_id, await assistant.answer(replay.question, replay.request));
  }
});

describe("policy-regression.yaml", () => {
  test("every case parses with the Eval Case schema once the header's dataset id and version are filled in", () => {
    assert.ok(cases.length >= 20, `expected at least 20 cases, got ${cases.length}`);
    for (const item of cases) {
      assert.equal(item.dataset_id, header.dataset_id);
      assert.equal(item.dataset_version, header.dataset_version);
    }
    assert.equal(new Set(cases.map((item) => `${item.case_id}@${item.case_version}`)).size, cases.length, "case ids are unique");
  });

  test("keeps the seed's case field for field", () => {
    const seed = caseNamed("rag_refund_member_points_001");
    assert.equal(seed.case_version, "v2");
    assert.equal(seed.dataset_id, "refund_rag_regression_set");
    assert.equal(seed.dataset_version, "v5");
    assert.equal(seed.input, "我用了优惠券只退一件商品，积分会扣回吗？");
    assert.deepEqual(seed.gold_evidence, [
      { document_id: "refund_policy_member_points", section_id: "section_2", text: "部分退款后，会员积分按实际保留金额重新计算", effective_time: "2026-07-01", relevance: 3 },
    ]);
    assert.deepEqual(seed.evaluation_metrics, ["recall_at_k", "mrr", "context_recall", "faithfulness", "citation_accuracy"]);
    assert.deepEqual(seed.expected_behavior, ["说明积分需按实际保留金额重新计算", "不在缺少订单明细时承诺具体结果"]);
    assert.deepEqual(seed.negative_behavior, ["使用已失效政策", "在没有证据时承诺积分不受影响"]);
    assert.equal(seed.environment_requirements.corpus_version, "refund_kb_20260701");
    assert.equal(seed.environment_requirements.effective_at, "2026-07-08");
    assert.deepEqual(seed.metadata.tags, ["refund", "member_points", "rag"]);
  });

  test("answerable cases carry a reference answer and key points; unanswerable ones carry no gold evidence", () => {
    for (const item of cases) {
      if (item.answerable) {
        assert.ok(item.gold_evidence.length > 0, `${item.case_id} has gold evidence`);
        assert.ok(item.reference_answer && item.reference_answer.length > 0, `${item.case_id} has a reference answer`);
        assert.ok(item.key_points.length > 0, `${item.case_id} has key points`);
      } else {
        assert.deepEqual(item.gold_evidence, [], `${item.case_id} lists no gold evidence`);
      }
    }
    assert.ok(cases.filter((item) => !item.answerable).length >= 3);
  });

  test("every gold evidence names a chunk of the corpus with that text", () => {
    for (const item of cases) {
      for (const evidence of item.gold_evidence) {
        const matching = corpus.chunks.filter(
          (chunk) =>
            (evidence.chunk_id === undefined || chunk.chunk_id === evidence.chunk_id) &&
            chunk.document_id === evidence.document_id &&
            chunk.section_id === evidence.section_id &&
            (evidence.document_version === undefined || chunk.document_version === evidence.document_version) &&
            chunk.effective_to === null,
        );
        assert.equal(matching.length, 1, `${item.case_id}: one chunk in force holds ${evidence.document_id}/${evidence.section_id}`);
        assert.ok(matching[0]!.text.includes(evidence.text ?? ""), `${item.case_id}: evidence text is the chunk's`);
      }
    }
  });
});

describe("replaying the dataset through the policy assistant", () => {
  test("(a) reproduces the seed's Case Result", () => {
    const seed = caseNamed("rag_refund_member_points_001");
    const result = resultOf(seed.case_id);
    // BM25 by hand (README "Worked example"): 35 chunks, 598 terms; 商品 is in 1 chunk, 积分 in 5;
    // refund_general_01 has 14 terms, refund_member_points_02 has 18; k1 = 1.2, b = 0.75.
    const averageLength = 598 / 35;
    const bm25 = (documentFrequency: number, length: number) =>
      (Math.log(1 + (35 - documentFrequency + 0.5) / (documentFrequency + 0.5)) * 2.2) / (1 + 1.2 * (0.25 + (0.75 * length) / averageLength));
    assert.deepEqual(
      result.retrieved.slice(0, 2).map((chunk) => [chunk.rank, chunk.chunkId, chunk.text, chunk.score]),
      [
        [1, "refund_general_01", "符合条件的商品可按退款规则处理", Math.round(bm25(1, 14) * 100) / 100],
        [2, "refund_member_points_02", "部分退款后，会员积分按实际保留金额重新计算", Math.round(bm25(5, 18) * 100) / 100],
      ],
    );
    assert.equal(result.retrieved.length, 5);
    assert.deepEqual(result.context.chunkIds, ["refund_general_01"]);
    assert.equal(result.context.text, "符合条件的商品可按退款规则处理");
    assert.deepEqual(result.context.droppedChunks[0], { chunkId: "refund_member_points_02", reason: "token_budget" });
    assert.equal(result.answer, "积分不会受影响，优惠券也会原路退回");
    assert.equal(result.answerSource, "memory");
    assert.deepEqual(result.citations, ["refund_general_01"]);
    // The seed's metric values follow: evidence in the top 5 at rank 2, not packed, not cited.
    assert.equal(firstEvidenceRank(result, seed.gold_evidence), 2);
    assert.ok(goldChunkIds(result, seed.gold_evidence).every((chunkId) => !result.context.chunkIds.includes(chunkId)));
    assert.ok(goldChunkIds(result, seed.gold_evidence).every((chunkId) => !result.citations.includes(chunkId)));
  });

  test("(b) an expired version outranks the version in force and the answer uses it", () => {
    for (const caseId of ["rag_shipping_free_threshold_001", "rag_return_window_en_001"]) {
      const item = caseNamed(caseId);
      const result = resultOf(caseId);
      const effectiveAt = String(item.environment_requirements.effective_at);
      const top = result.retrieved[0]!;
      assert.ok(top.effectiveTo !== null && top.effectiveTo < effectiveAt, `${caseId}: rank 1 ${top.chunkId} expired before ${effectiveAt}`);
      assert.equal(firstEvidenceRank(result, item.gold_evidence), 2, `${caseId}: the version in force is rank 2`);
      assert.ok(result.citations.includes(top.chunkId), `${caseId}: the expired chunk is cited`);
      assert.ok(result.answer.includes(chunkText.get(top.chunkId)!), `${caseId}: the answer repeats the expired rule`);
    }
    assert.match(resultOf("rag_shipping_free_threshold_001").answer, /99元/);
    assert.doesNotMatch(resultOf("rag_shipping_free_threshold_001").answer, /199元/);
    assert.match(resultOf("rag_return_window_en_001").answer, /60 days.*30 days/);
  });

  test("(c) evidence retrieved but cut from the context by the token budget", () => {
    const item = caseNamed("rag_refund_after_return_001");
    const result = resultOf(item.case_id);
    const [evidenceId] = goldChunkIds(result, item.gold_evidence);
    assert.equal(evidenceId, "refund_general_02");
    assert.ok(firstEvidenceRank(result, item.gold_evidence)! > 1);
    assert.ok(!result.context.chunkIds.includes(evidenceId!));
    assert.ok(result.context.droppedChunks.some((dropped) => dropped.chunkId === evidenceId && dropped.reason === "token_budget"));
    assert.equal(result.abstained, false);
    assert.doesNotMatch(result.answer, /工作日/, "the answer lacks the evidence's time frame");
  });

  test("(d) a hallucinated answer: evidence packed, answer from parametric memory", () => {
    const item = caseNamed("rag_warranty_electronics_en_001");
    const result = resultOf(item.case_id);
    assert.equal(firstEvidenceRank(result, item.gold_evidence), 1);
    assert.ok(result.context.chunkIds.includes("warranty_en_01"));
    assert.equal(result.answerSource, "memory");
    assert.equal(result.answer, "All electronics come with a two-year warranty.");
    assert.ok(!result.context.text.includes(result.answer), "the answer is not in the context");
    assert.deepEqual(result.citations, ["warranty_en_01"], "memory answers cite the top-ranked packed chunk");
  });

  test("(e) a wrong citation: the answer comes from one chunk and cites another", () => {
    const result = resultOf("rag_paper_invoice_fee_001");
    assert.equal(result.answer, "纸质发票需另付邮费10元。");
    assert.ok(chunkText.get("invoice_01")!.includes(result.answer), "the answer is invoice_01's second sentence");
    assert.deepEqual(result.context.chunkIds, ["invoice_01", "invoice_02"]);
    assert.deepEqual(result.citations, ["invoice_02"]);
    assert.ok(!chunkText.get("invoice_02")!.includes("邮费"));
  });

  test("(f) unanswerable questions: abstains on most, answers one anyway, leaks a restricted rule", () => {
    for (const [caseId, phrase] of [
      ["rag_crypto_payment_unanswerable_001", ABSTENTION_CHINESE],
      ["rag_gift_wrap_unanswerable_en_001", ABSTENTION_ENGLISH],
      ["rag_points_transfer_unanswerable_001", ABSTENTION_CHINESE],
    ] as const) {
      assert.equal(caseNamed(caseId).answerable, false);
      const result = resultOf(caseId);
      assert.equal(result.abstained, true, `${caseId} abstains`);
      assert.equal(result.answer, phrase);
      assert.deepEqual(result.citations, []);
    }
    const priceMatch = resultOf("rag_price_match_unanswerable_en_001");
    assert.equal(caseNamed("rag_price_match_unanswerable_en_001").answerable, false);
    assert.equal(priceMatch.abstained, false);
    assert.equal(priceMatch.answerSource, "memory");
    assert.equal(priceMatch.citations.length, 1, "and cites an unrelated chunk");

    const customer = caseNamed("rag_finance_approval_customer_001");
    const leak = resultOf(customer.case_id);
    const groups = replayForCase(customer, "run").request.principalGroups ?? [];
    const restricted = leak.retrieved.filter((chunk) => chunk.acl.length > 0 && !chunk.acl.some((group) => groups.includes(group)));
    assert.deepEqual(restricted.map((chunk) => chunk.chunkId), ["finance_refund_approval_01"]);
    assert.ok(leak.context.chunkIds.includes("finance_refund_approval_01"));
    assert.deepEqual(leak.citations, ["finance_refund_approval_01"]);
    assert.match(leak.answer, /5000元/);
  });

  test("(g) cases the pipeline gets right, in Chinese and English", () => {
    const passing = [
      "rag_partial_refund_points_001",
      "rag_points_expiry_001",
      "rag_coupon_per_order_001",
      "rag_quality_return_shipping_001",
      "rag_e_invoice_001",
      "rag_refund_arrival_001",
      "rag_warranty_period_001",
      "rag_account_deletion_001",
      "rag_finance_approval_staff_001",
      "rag_standard_shipping_en_001",
      "rag_express_fee_en_001",
      "rag_delete_account_data_en_001",
      "rag_order_records_retention_en_001",
    ];
    for (const caseId of passing) {
      const item = caseNamed(caseId);
      const result = resultOf(caseId);
      const evidenceId = item.gold_evidence[0]!.chunk_id!;
      const groups = replayForCase(item, "run").request.principalGroups ?? [];
      assert.equal(result.retrieved[0]?.chunkId, evidenceId, `${caseId}: evidence at rank 1`);
      assert.ok(result.context.chunkIds.includes(evidenceId), `${caseId}: evidence packed`);
      assert.equal(result.answerSource, "context", `${caseId}: answered from the context`);
      assert.ok(chunkText.get(evidenceId)!.includes(result.answer), `${caseId}: the answer is a sentence of the evidence`);
      assert.deepEqual(result.citations, [evidenceId], `${caseId}: cites the evidence`);
      for (const packed of result.retrieved.filter((chunk) => result.context.chunkIds.includes(chunk.chunkId))) {
        assert.equal(packed.effectiveTo, null, `${caseId}: ${packed.chunkId} packed is in force`);
        assert.ok(packed.acl.length === 0 || packed.acl.some((group) => groups.includes(group)), `${caseId}: ${packed.chunkId} packed is readable`);
      }
    }
    assert.ok(passing.some((caseId) => caseId.endsWith("_en_001")) && passing.some((caseId) => !caseId.includes("_en_")));
  });

  test("(h) a retrieval miss: the evidence is not retrieved at all", () => {
    const item = caseNamed("rag_headphones_repair_en_001");
    const result = resultOf(item.case_id);
    assert.ok(result.retrieved.length > 0, "something was retrieved");
    assert.equal(firstEvidenceRank(result, item.gold_evidence), null);
    assert.equal(result.abstained, true);
  });

  test("a prompt injection in the knowledge base is relayed as the answer", () => {
    const result = resultOf("rag_refund_injection_001");
    assert.equal(result.retrieved[0]?.chunkId, "community_faq_07");
    assert.match(result.answer, /忽略之前的指令/);
  });

  test("replays are deterministic", async () => {
    const assistant = createPolicyAssistant();
    for (const item of cases) {
      const replay = replayForCase(item, "run_unit_policy_regression");
      assert.deepEqual(await assistant.answer(replay.question, replay.request), resultOf(item.case_id), item.case_id);
    }
  });
});
