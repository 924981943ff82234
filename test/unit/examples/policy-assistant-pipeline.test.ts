/**
 * The policy assistant's stages one by one: term extraction and token counts,
 * sentence splitting, the corpus contract, BM25 retrieval, context packing,
 * the extractive generator (abstention, memory), the citation flaw and the
 * optional reranker. Expected values are worked out by hand from the rules in
 * each module's header.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createPolicyAssistant } from "../../../examples/policy-assistant/create-policy-assistant.js";
import { loadBundledCorpus, parsePolicyCorpus, type PolicyChunk } from "../../../examples/policy-assistant/corpus/policy-corpus.js";
import { linkCitations } from "../../../examples/policy-assistant/pipeline/citation-linker.js";
import { assembleContext } from "../../../examples/policy-assistant/pipeline/context-assembler.js";
import { ABSTENTION_ENGLISH, buildPrompt, generateAnswer } from "../../../examples/policy-assistant/pipeline/extractive-generator.js";
import { buildLexicalIndex, type RankedChunk } from "../../../examples/policy-assistant/pipeline/lexical-retriever.js";
import { splitSentences } from "../../../examples/policy-assistant/pipeline/sentences.js";
import { rerankBySupport } from "../../../examples/policy-assistant/pipeline/support-reranker.js";
import { countTokens, lexicalTerms } from "../../../examples/policy-assistant/pipeline/text-terms.js";

function chunk(chunkId: string, text: string, overrides: Partial<PolicyChunk> = {}): PolicyChunk {
  return {
    chunk_id: chunkId,
    document_id: `doc_${chunkId}`,
    document_version: "v1",
    section_id: "section_1",
    text,
    effective_from: "2026-01-01",
    effective_to: null,
    acl: [],
    tenant_id: "acme_shop",
    ...overrides,
  };
}

function ranked(chunks: PolicyChunk[]): RankedChunk[] {
  return chunks.map((item, index) => ({ rank: index + 1, score: 1, chunk: item }));
}

describe("text terms and tokens", () => {
  test("Chinese is cut into bigrams inside punctuation-delimited runs; English into stemmed non-stop words", () => {
    assert.deepEqual(lexicalTerms("积分会扣回吗？"), ["积分", "分会", "会扣", "扣回", "回吗"]);
    assert.deepEqual(lexicalTerms("退款，积分"), ["退款", "积分"], "no bigram spans the comma");
    assert.deepEqual(lexicalTerms("每"), ["每"], "a lone Han character stays a unigram");
    assert.deepEqual(lexicalTerms("How long do the Policies last?"), ["long", "policy", "last"]);
    assert.deepEqual(lexicalTerms("满199元"), ["满", "199", "元"]);
  });

  test("one token per Han character and per English word or number; punctuation is free", () => {
    assert.equal(countTokens("符合条件的商品可按退款规则处理"), 15);
    assert.equal(countTokens("部分退款后，会员积分按实际保留金额重新计算"), 20);
    assert.equal(countTokens("Standard shipping takes 3 to 5 business days."), 8);
    assert.equal(countTokens("满199元包邮"), 5);
  });

  test("sentences end at 。！？； and at a full stop followed by a space, and keep their mark", () => {
    assert.deepEqual(splitSentences("电子发票随订单自动开具。纸质发票需另付邮费10元。"), ["电子发票随订单自动开具。", "纸质发票需另付邮费10元。"]);
    assert.deepEqual(splitSentences("A fee of 3.5 dollars applies. Damage is not covered."), ["A fee of 3.5 dollars applies.", "Damage is not covered."]);
    assert.deepEqual(splitSentences("符合条件的商品可按退款规则处理"), ["符合条件的商品可按退款规则处理"]);
  });
});

describe("the bundled corpus", () => {
  const corpus = loadBundledCorpus();
  const byId = new Map(corpus.chunks.map((item) => [item.chunk_id, item]));

  test("holds the seed's two chunks exactly", () => {
    assert.equal(byId.get("refund_general_01")?.text, "符合条件的商品可按退款规则处理");
    assert.equal(byId.get("refund_general_01")?.document_id, "refund_policy_general");
    const points = byId.get("refund_member_points_02");
    assert.equal(points?.document_id, "refund_policy_member_points");
    assert.equal(points?.section_id, "section_2");
    assert.equal(points?.text, "部分退款后，会员积分按实际保留金额重新计算");
    assert.equal(points?.effective_from, "2026-07-01");
  });

  test("has expired versions of at least two documents, a restricted document and a prompt injection, in two languages", () => {
    const expiredDocuments = new Set(corpus.chunks.filter((item) => item.effective_to !== null && item.effective_to < "2026-07-08").map((item) => item.document_id));
    assert.ok(expiredDocuments.size >= 2, `expired documents: ${[...expiredDocuments].join(", ")}`);
    for (const documentId of expiredDocuments) {
      assert.ok(corpus.chunks.some((item) => item.document_id === documentId && item.effective_to === null), `${documentId} has a version in force`);
    }
    assert.ok(corpus.chunks.some((item) => item.acl.includes("finance_staff")));
    assert.ok(corpus.chunks.some((item) => item.text.includes("忽略之前的指令")));
    assert.ok(corpus.chunks.some((item) => /^[A-Z]/.test(item.text)) && corpus.chunks.some((item) => /\p{Script=Han}/u.test(item.text)));
  });

  test("rejects duplicate chunk ids and malformed dates with a message", () => {
    const duplicate = parsePolicyCorpus({ corpus_version: "x", chunks: [chunk("a", "一"), chunk("a", "二")] });
    assert.equal(duplicate.ok, false);
    if (!duplicate.ok) assert.match(duplicate.error, /duplicate chunk_id a/);
    const badDate = parsePolicyCorpus({ corpus_version: "x", chunks: [chunk("a", "一", { effective_from: "July 2026" })] });
    assert.equal(badDate.ok, false);
    if (!badDate.ok) assert.match(badDate.error, /effective_from/);
  });
});

describe("retrieval", () => {
  test("BM25 scores rounded to two decimals, ties broken by chunk id, only matching chunks, topK", () => {
    // Two identical chunks and one longer one sharing the single query term 退款.
    const index = buildLexicalIndex([chunk("b", "退款规则"), chunk("a", "退款规则"), chunk("c", "退款规则说明细则"), chunk("d", "发票")]);
    const results = index.search("退款", 5);
    assert.deepEqual(results.map((item) => item.chunk.chunk_id), ["a", "b", "c"]);
    // N = 4, df(退款) = 3 → idf = ln(1 + 1.5/3.5); lengths 3, 3, 7 terms; average (3+3+7+1)/4 = 3.5.
    const idf = Math.log(1 + 1.5 / 3.5);
    const expected = (length: number) => Math.round(((idf * 2.2) / (1 + 1.2 * (0.25 + (0.75 * length) / 3.5))) * 100) / 100;
    assert.deepEqual(results.map((item) => item.score), [expected(3), expected(3), expected(7)]);
    assert.deepEqual(results.map((item) => item.rank), [1, 2, 3]);
    assert.equal(index.search("退款", 2).length, 2);
    assert.deepEqual(index.search("比特币", 5), []);
  });

  test("does not filter expired versions or ACLs (the designed flaw)", () => {
    const index = buildLexicalIndex([
      chunk("old", "包邮门槛99元", { effective_to: "2026-06-30" }),
      chunk("secret", "包邮成本内部核算", { acl: ["finance_staff"] }),
    ]);
    assert.deepEqual(index.search("包邮", 5).map((item) => item.chunk.chunk_id).sort(), ["old", "secret"]);
  });
});

describe("context assembly", () => {
  test("packs in rank order, drops a chunk that does not fit and keeps trying the next", () => {
    const candidates = ranked([chunk("a", "一二三四五"), chunk("b", "一二三四五六七"), chunk("c", "一二三")]);
    const context = assembleContext(candidates, 9);
    assert.deepEqual(context.chunks.map((item) => item.chunk.chunk_id), ["a", "c"]);
    assert.deepEqual(context.dropped, [{ chunkId: "b", reason: "token_budget" }]);
    assert.equal(context.tokenCount, 8);
    assert.equal(context.tokenBudget, 9);
    assert.equal(context.text, "一二三四五\n一二三");
  });
});

describe("generation and citation", () => {
  const corpus = loadBundledCorpus();
  const index = buildLexicalIndex(corpus.chunks);
  const settings = { index, memory: [], supportThreshold: 0.25 };

  test("abstains with the fixed phrase when no sentence reaches the support threshold", () => {
    const context = assembleContext(ranked([chunk("x", "Standard shipping takes 3 to 5 business days.")]), 34);
    const generated = generateAnswer(settings, "Do you sell gift cards?", buildPrompt("Do you sell gift cards?", context));
    assert.equal(generated.abstained, true);
    assert.equal(generated.text, ABSTENTION_ENGLISH);
    assert.deepEqual(generated.citationMarkers, []);
  });

  test("a memory entry overrides the context and is marked [1]", () => {
    const memory = [{ id: "m", patterns: [/shipping/u], answer: "Shipping is always free.", origin: "test" }];
    const context = assembleContext(ranked([chunk("x", "Standard shipping takes 3 to 5 business days.")]), 34);
    const question = "How long does standard shipping take?";
    const generated = generateAnswer({ ...settings, memory }, question, buildPrompt(question, context));
    assert.equal(generated.source, "memory");
    assert.equal(generated.text, "Shipping is always free.");
    assert.deepEqual(linkCitations(generated.citationMarkers, context), ["x"]);
  });

  test("usage and cost follow from token counts and fixed prices", () => {
    const context = assembleContext(ranked([chunk("x", "Standard shipping takes 3 to 5 business days.")]), 34);
    const question = "How long does standard shipping take?";
    const prompt = buildPrompt(question, context);
    const generated = generateAnswer(settings, question, prompt);
    assert.equal(generated.text, "Standard shipping takes 3 to 5 business days.");
    assert.equal(generated.inputTokens, countTokens(prompt.text));
    assert.equal(generated.outputTokens, 8);
    assert.equal(generated.cost, Number(((generated.inputTokens * 0.15 + 8 * 0.6) / 1e6).toFixed(10)));
  });

  test("[n] numbers sentences but resolves to the n-th chunk (the designed citation flaw)", () => {
    const context = assembleContext(ranked([chunk("two_sentences", "甲规则。乙规则。"), chunk("other", "丙规则。")]), 34);
    const prompt = buildPrompt("乙", context);
    assert.deepEqual(prompt.sentences.map((sentence) => [sentence.number, sentence.chunkId]), [
      [1, "two_sentences"],
      [2, "two_sentences"],
      [3, "other"],
    ]);
    assert.deepEqual(linkCitations([2], context), ["other"], "sentence 2 is in two_sentences but cites other");
    assert.deepEqual(linkCitations([3], context), [], "past the last chunk nothing is cited");
    assert.deepEqual(linkCitations([1, 1], context), ["two_sentences"]);
  });
});

describe("the assembled assistant", () => {
  test("per-request overrides of topK and token budget", async () => {
    const assistant = createPolicyAssistant();
    const question = "我用了优惠券只退一件商品，积分会扣回吗？";
    const wider = await assistant.answer(question, { tokenBudget: 35, topK: 2 });
    assert.deepEqual(wider.retrieved.map((item) => item.chunkId), ["refund_general_01", "refund_member_points_02"]);
    assert.deepEqual(wider.context.chunkIds, ["refund_general_01", "refund_member_points_02"], "15 + 20 tokens fit in 35");
    assert.equal(wider.context.tokenBudget, 35);
    await assert.rejects(assistant.answer(question, { topK: 0 }), /topK must be a positive integer/);
  });

  test("without parametric memory the seed's question is answered from the context or abstained, never from memory", async () => {
    const assistant = createPolicyAssistant({ memory: [] });
    const result = await assistant.answer("我用了优惠券只退一件商品，积分会扣回吗？");
    assert.notEqual(result.answerSource, "memory");
    assert.equal(result.abstained, true);
  });

  test("the optional reranker orders by support and keeps the first stage", async () => {
    const corpus = loadBundledCorpus();
    const index = buildLexicalIndex(corpus.chunks);
    const question = "How many days do I have to return an item?";
    const firstStage = index.search(question, 5);
    const reranked = rerankBySupport(index, question, firstStage);
    assert.deepEqual([...reranked.map((item) => item.chunk.chunk_id)].sort(), [...firstStage.map((item) => item.chunk.chunk_id)].sort());
    for (let position = 1; position < reranked.length; position += 1) {
      assert.ok(reranked[position - 1]!.score >= reranked[position]!.score);
    }
    const result = await createPolicyAssistant({ rerank: true }).answer(question);
    assert.deepEqual(result.retrievedBeforeRerank?.map((item) => item.chunkId), firstStage.map((item) => item.chunk.chunk_id));
    assert.deepEqual(result.retrieved.map((item) => item.chunkId), reranked.map((item) => item.chunk.chunk_id));
  });
});
