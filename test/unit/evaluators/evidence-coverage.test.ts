/**
 * Evidence matching by coverage, checked against credit worked out from the
 * split offsets alone.
 *
 * A passage is generated (seeded) as a list of compact characters, each
 * rendered with the separators, case and full-width forms that normalisation
 * removes. The gold evidence is a known character range of a document; the
 * document is cut at random offsets into non-overlapping or overlapping
 * chunks, shuffled into a ranking with chunks of an unrelated document. The
 * test knows which document characters each chunk holds, so interval
 * arithmetic gives, independently of the implementation:
 * - a chunk's coverage: |chunk ∩ evidence| / |evidence| when the intersection
 *   is at least COVERAGE_NGRAM_CHARACTERS long (the documented window), else 0
 *   — exact because the generated text has no repeated window (asserted);
 * - the union covered by the top r chunks, and the first rank where it
 *   reaches the case's evidence_min_coverage;
 * - from that rank, MRR, recall@k and NDCG@10 (one evidence, grade 3);
 * - context recall of the first packed chunks.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { EvalCase } from "../../../contracts/eval-case.js";
import { evalCase as evalCaseSchema } from "../../../contracts/eval-case.js";
import { rankEvidence } from "../../../evaluators/evidence/evidence-ranking.js";
import { matchEvidence } from "../../../evaluators/evidence/match-evidence.js";
import { COVERAGE_NGRAM_CHARACTERS } from "../../../evaluators/evidence/text-coverage.js";
import type { MetricValue } from "../../../evaluators/metric-value.js";
import { contextCoverageEvaluator } from "../../../evaluators/rules/context-coverage.js";
import { retrievalRankingEvaluator } from "../../../evaluators/rules/retrieval-ranking.js";
import { buildCase, buildCaseResult, chunks } from "../../support/case-results.js";

const N = COVERAGE_NGRAM_CHARACTERS;

/** mulberry32: deterministic for a seed. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = state;
    mixed = Math.imul(mixed ^ (mixed >>> 15), mixed | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}

type Random = () => number;
const between = (random: Random, low: number, high: number) => low + Math.floor(random() * (high - low + 1));
const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

const CHINESE =
  "的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子说产种面而方后多定行学法所民得经十三之进着等部度家电力里如水化高自二理起小物现实加量都两体制机当使点从业本去把性好应开它合还因由其些然前外天政四日那社义事平形相全表间样与关各重新线内数正心反你明看原又么利比或但质气第向道命此变条只没结解问意建月公无系军很情者最立代想已通并提直题党程展五果料象员革位入常文总次品式活设及管特件长求老头基资边流路级少图山统接知较将组见计别她手角期根论运农指几九区强放决西被干做必战先回则任取据处队南给色光门即保治北造百规热领七海口东导器压志世金增争济阶油思术极交受联什认六共权收证改清己美再采转更单风切打白教速花带安场身车例真务具万每目至达走积示议声报斗完类八离华名确才科张信马节话米整空元况今集温传土许步群广石记需段研界拉林律叫且究观越织装影算低持音众书布复容儿须际商非验连断深难近矿千周委素技备半办青省列习响约支般史感劳便团往酸历市克何除消构府称太准精值号率族维划选标写存候毛亲快效斯院查江型眼王按格养易置派层片始却专状育厂京识适属圆包火住调满县局照参红细引听该铁价严龙飞";

interface Script {
  name: string;
  /** One compact character (what normalisation keeps) and how it is written. */
  character(random: Random): { compact: string; written: string };
  /** What may stand between two characters; normalisation removes all of it. */
  separators: readonly string[];
}

const LETTERS = "abcdefghijklmnopqrstuvwxyz0123456789";

const scripts: Script[] = [
  {
    name: "Chinese",
    character: (random) => {
      const compact = pick(random, [...CHINESE]);
      return { compact, written: compact };
    },
    separators: ["", "", "", "", "", "，", "。", "、", "：", "（", "）", " "],
  },
  {
    name: "English",
    character: (random) => {
      const compact = pick(random, [...LETTERS]);
      const form = random();
      // Upper case and full-width forms normalise to the compact character (NFKC, lower case).
      const written = form < 0.15 ? compact.toUpperCase() : form < 0.2 ? String.fromCodePoint(compact.codePointAt(0)! + 0xfee0) : compact;
      return { compact, written };
    },
    separators: ["", "", "", " ", " ", " ", ", ", ". ", " - ", "'", "; "],
  },
];

/** A text whose compact characters are known one by one: pieces[i] renders compact character i (with the separator before it). */
interface KnownText {
  compact: string[];
  pieces: string[];
}

function generateText(random: Random, script: Script, length: number): KnownText {
  const compact: string[] = [];
  const pieces: string[] = [];
  for (let index = 0; index < length; index += 1) {
    const { compact: character, written } = script.character(random);
    compact.push(character);
    pieces.push((index === 0 ? "" : pick(random, script.separators)) + written);
  }
  return { compact, pieces };
}

const written = (text: KnownText, start: number, end: number) => text.pieces.slice(start, end).join("");

interface Interval {
  start: number;
  end: number;
}

/** |union of intervals| by sorting and merging. */
function unionLength(intervals: readonly Interval[]): number {
  const sorted = intervals.filter((interval) => interval.end > interval.start).sort((first, second) => first.start - second.start);
  let total = 0;
  let currentStart = -1;
  let currentEnd = -1;
  for (const interval of sorted) {
    if (interval.start > currentEnd) {
      total += currentEnd - currentStart;
      currentStart = interval.start;
      currentEnd = interval.end;
    } else currentEnd = Math.max(currentEnd, interval.end);
  }
  return total + (currentEnd - currentStart);
}

/** The part of the evidence a chunk holding document characters [start, end) covers: the intersection, when at least one window long. */
function coveredInterval(chunk: Interval, evidence: Interval): Interval {
  const start = Math.max(chunk.start, evidence.start);
  const end = Math.min(chunk.end, evidence.end);
  return end - start >= N ? { start, end } : { start: 0, end: 0 };
}

function assertNoRepeatedWindow(texts: readonly string[][]): void {
  const seen = new Set<string>();
  for (const text of texts) {
    for (let start = 0; start + N <= text.length; start += 1) {
      const window = text.slice(start, start + N).join("");
      assert.ok(!seen.has(window), `the generated text repeats the window ${window}: the expected values assume none`);
      seen.add(window);
    }
  }
}

function cutNonOverlapping(random: Random, length: number): Interval[] {
  const result: Interval[] = [];
  for (let start = 0; start < length; ) {
    const end = Math.min(length, start + between(random, 20, 700));
    result.push({ start, end });
    start = end;
  }
  return result;
}

function cutOverlapping(random: Random, length: number): Interval[] {
  const result: Interval[] = [];
  for (let start = 0; start < length; ) {
    const size = between(random, 40, 700);
    const end = Math.min(length, start + size);
    result.push({ start, end });
    if (end === length) break;
    start = end - between(random, 1, Math.min(size - 1, 200));
  }
  return result;
}

function shuffle<T>(random: Random, items: T[]): T[] {
  for (let index = items.length - 1; index > 0; index -= 1) {
    const other = Math.floor(random() * (index + 1));
    [items[index], items[other]] = [items[other]!, items[index]!];
  }
  return items;
}

const valueOf = (values: Record<string, MetricValue>, name: string) => {
  const value = values[name];
  assert.ok(value !== undefined, `${name} is reported`);
  return value.applicable ? value.value : null;
};

const caseWith = (evidenceText: string, minCoverage: number | undefined, extra: Record<string, unknown> = {}): EvalCase =>
  buildCase({
    gold_evidence: [{ document_id: "policy", text: evidenceText, ...extra }],
    ...(minCoverage === undefined ? {} : { evaluator_config: { evaluator_ids: [], required_evidence: [], evidence_min_coverage: minCoverage } }),
  });

describe("evidence split at random boundaries: credit follows from the split offsets", () => {
  for (const script of scripts) {
    for (const mode of ["non-overlapping", "overlapping"] as const) {
      test(`${script.name}, ${mode} chunks`, () => {
        const random = mulberry32(script.name === "Chinese" ? (mode === "overlapping" ? 11 : 12) : mode === "overlapping" ? 21 : 22);
        let foundSomewhere = 0;
        let splitCredits = 0;
        let missed = 0;
        for (let trial = 0; trial < 40; trial += 1) {
          const before = between(random, 0, 600);
          const evidenceLength = between(random, 40, 2000);
          const after = between(random, 0, 600);
          const document = generateText(random, script, before + evidenceLength + after);
          const other = generateText(random, script, 900);
          assertNoRepeatedWindow([document.compact, other.compact]);
          const evidence = { start: before, end: before + evidenceLength };
          const cut = mode === "overlapping" ? cutOverlapping : cutNonOverlapping;
          const documentChunks = cut(random, document.compact.length).map((interval, index) => ({ interval, id: `doc-${index}`, text: written(document, interval.start, interval.end) }));
          const distractors = cutNonOverlapping(random, other.compact.length)
            .slice(0, 3)
            .map((interval, index) => ({ interval: { start: -1, end: -1 }, id: `other-${index}`, text: written(other, interval.start, interval.end) }));
          // A random part of the chunks is retrieved (at most 20), so some evidence is only partly retrieved.
          const pool = shuffle(random, [...documentChunks, ...distractors]);
          const ranking = pool.slice(0, between(random, 1, Math.min(20, pool.length)));
          const minCoverage = pick(random, [0.3, 0.5, 0.8, 1]);
          const theCase = caseWith(written(document, evidence.start, evidence.end), minCoverage);
          const gold = theCase.gold_evidence[0]!;
          const retrieved = chunks(ranking.map((chunk) => ({ chunk_id: chunk.id, text: chunk.text })));

          // Each chunk's own coverage.
          const covered = ranking.map((chunk) => coveredInterval(chunk.interval, evidence));
          ranking.forEach((chunk, index) => {
            const interval = covered[index]!;
            const match = matchEvidence(retrieved[index]!, gold, { minCoverage });
            assert.equal(match.coverage, (interval.end - interval.start) / evidenceLength, `trial ${trial}: coverage of ${chunk.id} [${chunk.interval.start}, ${chunk.interval.end}) of evidence [${evidence.start}, ${evidence.end})`);
            assert.equal(match.matched, (interval.end - interval.start) / evidenceLength >= minCoverage);
          });

          // The first rank at which the union of the chunks so far is enough, and who added to it.
          let expectedRank: number | null = null;
          const expectedContributors: number[] = [];
          for (let rank = 1; rank <= ranking.length && expectedRank === null; rank += 1) {
            if (unionLength(covered.slice(0, rank)) > unionLength(covered.slice(0, rank - 1))) expectedContributors.push(rank);
            if (unionLength(covered.slice(0, rank)) / evidenceLength >= minCoverage) expectedRank = rank;
          }
          const evidenceRanking = rankEvidence(retrieved, theCase.gold_evidence, { minCoverage });
          assert.equal(evidenceRanking.foundAtRank[0], expectedRank, `trial ${trial}: first covered rank (min ${minCoverage})`);
          assert.equal(evidenceRanking.coverage[0], unionLength(covered) / evidenceLength);
          if (expectedRank !== null) assert.deepEqual(evidenceRanking.contributors[0], expectedContributors);

          // The ranking metrics use that rank; the minimum comes from the case.
          const caseResult = buildCaseResult({ retrieved: ranking.map((chunk) => ({ chunk_id: chunk.id, text: chunk.text })) });
          const { values } = retrievalRankingEvaluator.evaluate({ caseResult, evalCase: theCase });
          assert.equal(valueOf(values, "mrr"), expectedRank === null ? 0 : 1 / expectedRank);
          assert.equal(valueOf(values, "recall_at_5"), expectedRank !== null && expectedRank <= 5 ? 1 : 0);
          assert.equal(valueOf(values, "recall_at_10"), expectedRank !== null && expectedRank <= 10 ? 1 : 0);
          const ndcg = valueOf(values, "ndcg_at_10")!;
          assert.ok(Math.abs(ndcg - (expectedRank !== null && expectedRank <= 10 ? 1 / Math.log2(expectedRank + 1) : 0)) < 1e-12, `trial ${trial}: ndcg_at_10 ${ndcg}`);

          // Context recall of the first packed chunks: their union.
          const packedCount = between(random, 1, ranking.length);
          const packedResult = buildCaseResult({ retrieved: ranking.map((chunk) => ({ chunk_id: chunk.id, text: chunk.text })), contextChunkIds: ranking.slice(0, packedCount).map((chunk) => chunk.id) });
          const context = contextCoverageEvaluator.evaluate({ caseResult: packedResult, evalCase: theCase });
          assert.equal(valueOf(context.values, "context_recall"), unionLength(covered.slice(0, packedCount)) / evidenceLength >= minCoverage ? 1 : 0, `trial ${trial}: context recall of the top ${packedCount}`);

          if (expectedRank !== null) foundSomewhere += 1;
          else missed += 1;
          if (expectedRank !== null && expectedContributors.length > 1) splitCredits += 1;
        }
        // The generator exercises all three outcomes (guards against a generator that tests nothing).
        assert.ok(foundSomewhere > 0 && missed > 0 && splitCredits > 0, `found ${foundSomewhere}, missed ${missed}, credited over several chunks ${splitCredits}`);
      });
    }
  }
});

/** Compact characters as the README defines them (NFKC, lower case, no punctuation, symbols or spaces), counted here on their own. */
const compactLength = (text: string) => [...text.normalize("NFKC").toLowerCase().replace(/[\s\p{P}\p{S}]/gu, "")].length;

const SEED_EVIDENCE = "部分退款后，会员积分按实际保留金额重新计算";

describe("a fragment that covers a small share of the evidence does not count", () => {
  test("an English news dateline, alone or leading another story", () => {
    const text = "BEIJING, March 3 (Reuters) - China's central bank cut the reserve requirement ratio for banks by 50 basis points on Friday, releasing about 1 trillion yuan in long-term liquidity.";
    const theCase = caseWith(text, undefined);
    const dateline = "BEIJING, March 3 (Reuters) -";
    const share = compactLength(dateline) / compactLength(text);
    assert.ok(share < 0.15, `the dateline is ${share} of the evidence`);
    for (const chunkText of [dateline, `${dateline} Stocks in Shanghai rose for a fourth session as property developers rallied.`]) {
      const match = matchEvidence({ chunk_id: "x", document_id: null, section_id: null, document_version: null, text: chunkText }, theCase.gold_evidence[0]!);
      assert.deepEqual(match, { matched: false, rule: "text", coverage: share }, chunkText);
    }
    const { values } = retrievalRankingEvaluator.evaluate({ caseResult: buildCaseResult({ retrieved: [{ chunk_id: "header", text: dateline }] }), evalCase: theCase });
    assert.equal(valueOf(values, "recall_at_k"), 0);
    assert.equal(valueOf(values, "mrr"), 0);
  });

  test("a Chinese news dateline", () => {
    const text = "新华社北京3月3日电 中国人民银行决定，自3月15日起下调金融机构存款准备金率0.5个百分点，释放长期流动性资金约1万亿元。";
    const dateline = "新华社北京3月3日电";
    const theCase = caseWith(text, undefined);
    const share = compactLength(dateline) / compactLength(text);
    for (const chunkText of [dateline, `${dateline} 记者从国家统计局获悉，一季度全国规模以上工业增加值同比增长6.1%。`]) {
      const match = matchEvidence({ chunk_id: "x", document_id: null, section_id: null, document_version: null, text: chunkText }, theCase.gold_evidence[0]!);
      assert.deepEqual(match, { matched: false, rule: "text", coverage: share }, chunkText);
    }
  });
});

describe("half of an evidence passage in a chunk with half of another passage", () => {
  const first = "退货须在签收后七日内申请。部分退款后，会员积分";
  const second = "按实际保留金额重新计算。优惠券不予退还。";
  const distractor = "符合条件的商品可按退款规则处理";
  const ranking = [
    { chunk_id: "tail-of-rule-1", text: first },
    { chunk_id: "general", text: distractor },
    { chunk_id: "head-of-rule-3", text: second },
  ];

  test("is credited at the rank where the two halves together cover enough (default 0.8)", () => {
    const theCase = caseWith(SEED_EVIDENCE, undefined);
    const evidenceRanking = rankEvidence(chunks(ranking), theCase.gold_evidence);
    assert.deepEqual(evidenceRanking.foundAtRank, [3]);
    assert.deepEqual(evidenceRanking.contributors, [[1, 3]]);
    assert.equal(evidenceRanking.coverage[0], 1);
    const { values, evidence } = retrievalRankingEvaluator.evaluate({ caseResult: buildCaseResult({ retrieved: ranking }), evalCase: theCase });
    assert.equal(valueOf(values, "mrr"), 1 / 3);
    assert.equal(valueOf(values, "recall_at_1"), 0);
    assert.equal(valueOf(values, "recall_at_3"), 1);
    assert.deepEqual(evidence, ["tail-of-rule-1", "head-of-rule-3"]);
  });

  test("is credited alone when the case lowers the minimum to what it holds", () => {
    // "部分退款后会员积分" is 9 of the evidence's 20 compact characters.
    assert.equal(compactLength("部分退款后，会员积分") / compactLength(SEED_EVIDENCE), 0.45);
    assert.equal(valueOf(retrievalRankingEvaluator.evaluate({ caseResult: buildCaseResult({ retrieved: ranking }), evalCase: caseWith(SEED_EVIDENCE, 0.5) }).values, "mrr"), 1 / 3);
    const theCase = caseWith(SEED_EVIDENCE, 0.45);
    const { values } = retrievalRankingEvaluator.evaluate({ caseResult: buildCaseResult({ retrieved: ranking }), evalCase: theCase });
    assert.equal(valueOf(values, "mrr"), 1);
  });

  test("in English", () => {
    const text = "Refunds for annual plans are prorated to the day and paid back to the original card within ten business days.";
    const head = "Refunds for annual plans are prorated to the day";
    const tail = "and paid back to the original card within ten business days.";
    const theCase = caseWith(text, undefined);
    const retrieved = chunks([
      { chunk_id: "a", text: `Monthly plans renew automatically. ${head}` },
      { chunk_id: "b", text: `${tail} Gift cards are never refunded.` },
    ]);
    assert.equal(matchEvidence(retrieved[0]!, theCase.gold_evidence[0]!).coverage, compactLength(head) / compactLength(text));
    assert.equal(matchEvidence(retrieved[1]!, theCase.gold_evidence[0]!).coverage, compactLength(tail) / compactLength(text));
    assert.deepEqual(rankEvidence(retrieved, theCase.gold_evidence).foundAtRank, [2]);
  });
});

describe("ids decide before text", () => {
  const gold = () => caseWith(SEED_EVIDENCE, undefined, { document_id: "refund_policy_member_points", section_id: "section_2" });

  test("a chunk of another document quoting the evidence covers nothing; text pieces without ids are summed", () => {
    const retrieved = chunks([
      { chunk_id: "faq-quote", document_id: "faq", text: SEED_EVIDENCE },
      { chunk_id: "piece-1", text: "部分退款后，会员积分按实" },
      { chunk_id: "piece-2", text: "积分按实际保留金额重新计算" },
    ]);
    const ranking = rankEvidence(retrieved, gold().gold_evidence);
    assert.deepEqual(matchEvidence(retrieved[0]!, gold().gold_evidence[0]!), { matched: false, rule: "ids", coverage: 0 });
    assert.deepEqual(ranking.foundAtRank, [3]);
    assert.deepEqual(ranking.rules, ["text"]);
    assert.deepEqual(ranking.contributors, [[2, 3]]);
  });

  test("matching ids cover the whole evidence whatever the text; a named chunk id likewise", () => {
    const retrieved = chunks([
      { chunk_id: "piece-1", text: "部分退款后，会员积分" },
      { chunk_id: "section", document_id: "refund_policy_member_points", section_id: "section_2", text: "unrelated words" },
    ]);
    const ranking = rankEvidence(retrieved, gold().gold_evidence);
    assert.deepEqual(ranking.foundAtRank, [2]);
    assert.deepEqual(ranking.rules, ["ids"]);
    const byChunkId = caseWith(SEED_EVIDENCE, undefined, { chunk_id: "c-9" });
    assert.deepEqual(rankEvidence(chunks([{ chunk_id: "c-9", text: "unrelated words" }]), byChunkId.gold_evidence).rules, ["chunk_id"]);
  });
});

describe("context coverage with split evidence", () => {
  const thirds = ["部分退款后，会员积分按实际保", "留金额重新计算；使用优惠券的订单", "，优惠金额按商品实付比例分摊。"];
  const text = thirds.join("");

  test("three packed thirds cover the evidence; each is a packed chunk holding it, the distractor is not", () => {
    const theCase = caseWith(text, undefined);
    const caseResult = buildCaseResult({
      retrieved: [...thirds.map((third, index) => ({ chunk_id: `t${index + 1}`, text: third })), { chunk_id: "general", text: "符合条件的商品可按退款规则处理" }],
      contextChunkIds: ["t1", "general", "t2", "t3"],
    });
    const { values, evidence } = contextCoverageEvaluator.evaluate({ caseResult, evalCase: theCase });
    assert.equal(valueOf(values, "context_recall"), 1);
    assert.equal(valueOf(values, "context_precision"), 3 / 4);
    assert.deepEqual(evidence, ["t1", "t2", "t3"]);
    const twoThirds = buildCaseResult({ retrieved: thirds.map((third, index) => ({ chunk_id: `t${index + 1}`, text: third })), contextChunkIds: ["t1", "t2"] });
    const twoThirdsShare = compactLength(thirds[0]! + thirds[1]!) / compactLength(text);
    assert.ok(twoThirdsShare < 0.8, `two thirds cover ${twoThirdsShare}`);
    assert.equal(valueOf(contextCoverageEvaluator.evaluate({ caseResult: twoThirds, evalCase: theCase }).values, "context_recall"), 0);
  });

  test("a packed chunk cut to fit the prompt covers only what is still in the context text", () => {
    // The evidence in two parts of 9 and 11 compact characters; the second part's chunk was cut.
    const theCase = caseWith(SEED_EVIDENCE, undefined);
    const retrieved = [
      { chunk_id: "h1", text: "部分退款后，会员积分" },
      { chunk_id: "h2", text: "按实际保留金额重新计算" },
    ];
    const recallWithContext = (context: string) =>
      valueOf(contextCoverageEvaluator.evaluate({ caseResult: buildCaseResult({ retrieved, contextChunkIds: ["h1", "h2"], truncated: ["h2"], context }), evalCase: theCase }).values, "context_recall");
    // 4 characters of the second part survived: 13 of 20 covered.
    assert.equal(recallWithContext("部分退款后，会员积分按实际保"), 0);
    // 10 survived: 19 of 20.
    assert.equal(recallWithContext("部分退款后，会员积分按实际保留金额重新计"), 1);
  });
});

describe("evaluator_config.evidence_min_coverage", () => {
  const parse = (value: unknown) =>
    evalCaseSchema.safeParse({ case_id: "c", case_version: "1", dataset_id: "d", dataset_version: "1", input: "q", evaluator_config: { evidence_min_coverage: value } });

  test("accepts a share in (0, 1] and rejects anything else with the field's path", () => {
    assert.equal(parse(0.5).success, true);
    assert.equal(parse(1).success, true);
    for (const bad of [0, -0.2, 1.5, "0.8", null]) {
      const result = parse(bad);
      assert.equal(result.success, false, String(bad));
      assert.deepEqual(result.error!.issues[0]!.path, ["evaluator_config", "evidence_min_coverage"]);
    }
  });
});
