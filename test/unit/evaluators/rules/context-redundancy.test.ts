import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { overlapShare, tokenBigrams } from "../../../../evaluators/rules/context-text-overlap.js";
import { contextRedundancyEvaluator } from "../../../../evaluators/rules/context-redundancy.js";
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

  test("not applicable without packed chunks; one chunk is 0", () => {
    assert.equal(valueOf(contextRedundancyEvaluator.evaluate({ caseResult: caseResultWith(), evalCase: null }).values, "context_redundancy"), null);
    assert.equal(valueOf(contextRedundancyEvaluator.evaluate({ caseResult: caseResultWith({ packed: [] }), evalCase: null }).values, "context_redundancy"), null);
    assert.equal(valueOf(contextRedundancyEvaluator.evaluate({ caseResult: caseResultWith({ retrieved: [{ chunk_id: "a", text: "" }], packed: ["a"] }), evalCase: null }).values, "context_redundancy"), 0);
  });
});
