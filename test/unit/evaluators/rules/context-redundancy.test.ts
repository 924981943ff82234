import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { overlapShare, tokenBigrams } from "../../../../evaluators/rules/context-text-overlap.js";
import { contextRedundancyEvaluator, REDUNDANT_OVERLAP } from "../../../../evaluators/rules/context-redundancy.js";
import { compactText } from "../../../../evaluators/text/normalize-text.js";
import { caseResultWith, valueOf } from "./build-case-result.js";

describe("token bigram overlap", () => {
  test("bigrams of tokens; a one-token text is its own bigram", () => {
    assert.deepEqual(tokenBigrams(["a", "b", "c"]), ["a b", "b c"]);
    assert.deepEqual(tokenBigrams(["a"]), ["a"]);
    assert.deepEqual(tokenBigrams([]), []);
  });

  test("two different leave rules share 5 of 9 bigrams (8 of 10 single tokens would call them duplicates)", () => {
    // 员工每年享有10天病假 → 员工 工每 每年 年享 享有 有10 10天 天病 病假; 5 of them are in the other text.
    assert.equal(overlapShare("员工每年享有10天病假", "员工每年享有5天年假"), 5 / 9);
    assert.equal(overlapShare("", "anything"), null);
    assert.equal(overlapShare("annual leave", "Annual leave is five days"), 1);
  });
});

describe("context.redundancy", () => {
  test("hand-worked: a repeated id, a contained text and a near-duplicate among 5 packed chunks", () => {
    const caseResult = caseResultWith({
      retrieved: [
        { chunk_id: "a", text: "Employees get five days of annual leave per year." },
        { chunk_id: "b", text: "five days of annual leave" },
        { chunk_id: "c", text: "Employees get five days of annual leave per year, paid." },
        { chunk_id: "d", text: "Overtime is paid at 1.5 times the hourly wage." },
      ],
      packed: ["a", "b", "c", "d", "a"],
    });
    const { values, evidence, reason } = contextRedundancyEvaluator.evaluate({ caseResult, evalCase: null });
    // b is contained in a; c's 9 bigrams are a's 8 plus "year paid" (8/9 >= 0.8); the second a repeats a; d is new.
    assert.equal(valueOf(values, "context_redundancy"), 3 / 5);
    assert.deepEqual(evidence, ["b", "c", "a"]);
    assert.match(reason, /b repeats a \(contained\); c repeats a \(overlap\); a repeats a \(same id\)/);
  });

  test("sliding-window neighbours with a small overlap are not redundant", () => {
    const caseResult = caseResultWith({
      retrieved: [
        { chunk_id: "w1", text: "第一条 员工每年享有5天年假 第二条 年假须提前申请" },
        { chunk_id: "w2", text: "年假须提前申请 第三条 病假需提供医院证明" },
      ],
      packed: ["w1", "w2"],
    });
    assert.equal(valueOf(contextRedundancyEvaluator.evaluate({ caseResult, evalCase: null }).values, "context_redundancy"), 0);
  });

  test("chunks without recorded text are judged by id only", () => {
    const caseResult = caseResultWith({ packed: ["x", "y", "x"] });
    const { values, reason } = contextRedundancyEvaluator.evaluate({ caseResult, evalCase: null });
    assert.equal(valueOf(values, "context_redundancy"), 1 / 3);
    assert.match(reason, /judged by id only/);
  });

  test("a chunk whose bigrams are 28 of 35 in an earlier one repeats it: the share is exactly 0.8", () => {
    // 36 distinct words make 35 bigrams; the earlier text holds the first 29 words, so 28 of those bigrams.
    const words = Array.from({ length: 36 }, (_, index) => `w${index}x`);
    const caseResult = caseResultWith({
      retrieved: [
        { chunk_id: "earlier", text: words.slice(0, 29).join(" ") },
        { chunk_id: "later", text: words.join(" ") },
      ],
      packed: ["earlier", "later"],
    });
    assert.equal(overlapShare(words.join(" "), words.slice(0, 29).join(" ")), 0.8);
    assert.equal(valueOf(contextRedundancyEvaluator.evaluate({ caseResult, evalCase: null }).values, "context_redundancy"), 1 / 2);
  });

  test("agrees with the definition (same id, contained text, overlapShare >= 0.8) on 2,000 random contexts", () => {
    // A small vocabulary so that containments and overlaps around 0.8 occur; a seeded generator, so a failure repeats.
    let seed = 7;
    const random = (below: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % below;
    };
    const vocabulary = ["leave", "annual", "five", "days", "paid", "年", "假", "员工", "申请", "overtime"];
    let redundant = 0;
    for (let round = 0; round < 2_000; round += 1) {
      const base = Array.from({ length: 2 + random(12) }, () => vocabulary[random(vocabulary.length)]!);
      const chunks = Array.from({ length: 2 + random(5) }, (_, index) => {
        // Some chunks are the base with a word changed, cut or added; some are unrelated; a few have no text.
        const words = random(3) === 0 ? Array.from({ length: 1 + random(10) }, () => vocabulary[random(vocabulary.length)]!) : [...base];
        if (random(2) === 0) words[random(words.length)] = vocabulary[random(vocabulary.length)]!;
        if (random(3) === 0) words.splice(random(words.length), 1);
        if (random(3) === 0) words.push(vocabulary[random(vocabulary.length)]!);
        return { chunk_id: `c${random(3) === 0 ? 0 : index}`, text: random(10) === 0 ? null : words.join(" ") };
      });
      const packed = chunks.map((chunk) => chunk.chunk_id);
      const byId = new Map(chunks.map((chunk) => [chunk.chunk_id, chunk]));
      // The chunk the context holds for each id is the first retrieved with it (packed chunks are looked up by id).
      const texts = packed.map((id) => byId.get(id)!.text);
      let expected = 0;
      packed.forEach((id, index) => {
        for (let earlier = 0; earlier < index; earlier += 1) {
          const text = texts[index] ?? null;
          const previous = texts[earlier] ?? null;
          const share = text === null || previous === null ? null : overlapShare(text, previous);
          const contained = text !== null && previous !== null && compactText(text) !== "" && compactText(previous).includes(compactText(text));
          if (packed[earlier] === id || contained || (share !== null && share >= REDUNDANT_OVERLAP)) {
            expected += 1;
            return;
          }
        }
      });
      redundant += expected;
      const caseResult = caseResultWith({ retrieved: [...byId.values()].map((chunk) => ({ chunk_id: chunk.chunk_id, ...(chunk.text === null ? {} : { text: chunk.text }) })), packed });
      assert.equal(valueOf(contextRedundancyEvaluator.evaluate({ caseResult, evalCase: null }).values, "context_redundancy"), expected / packed.length, `round ${round}: ${JSON.stringify({ chunks, packed })}`);
    }
    assert.ok(redundant > 500, `the generator made repetitions (${redundant})`);
  });

  test("past 32,768 distinct tokens in a context the bigrams are counted as strings, with the same verdicts", () => {
    const words = (from: number, count: number) => Array.from({ length: count }, (_, index) => `t${from + index}x`);
    // 40,000 distinct tokens in all; "later" shares 9 of its 10 bigrams with "earlier", "far" none.
    const earlier = [...words(0, 20_000), ...words(50_000, 10)].join(" ");
    const later = [...words(50_000, 10), "t99999x"].join(" ");
    const far = words(20_000, 20_000).join(" ");
    const caseResult = caseResultWith({
      retrieved: [
        { chunk_id: "earlier", text: earlier },
        { chunk_id: "later", text: later },
        { chunk_id: "far", text: far },
      ],
      packed: ["earlier", "later", "far"],
    });
    assert.equal(overlapShare(later, earlier), 0.9);
    const { values, evidence } = contextRedundancyEvaluator.evaluate({ caseResult, evalCase: null });
    assert.equal(valueOf(values, "context_redundancy"), 1 / 3);
    assert.deepEqual(evidence, ["later"]);
  });

  test("not applicable without packed chunks; one chunk is 0", () => {
    assert.equal(valueOf(contextRedundancyEvaluator.evaluate({ caseResult: caseResultWith(), evalCase: null }).values, "context_redundancy"), null);
    assert.equal(valueOf(contextRedundancyEvaluator.evaluate({ caseResult: caseResultWith({ packed: [] }), evalCase: null }).values, "context_redundancy"), null);
    assert.equal(valueOf(contextRedundancyEvaluator.evaluate({ caseResult: caseResultWith({ retrieved: [{ chunk_id: "a", text: "" }], packed: ["a"] }), evalCase: null }).values, "context_redundancy"), 0);
  });
});
