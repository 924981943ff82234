import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { JudgeBudget } from "../../../evaluators/judge/judge-budget.js";
import { costOf, estimateTokens } from "../../../evaluators/judge/judge-pricing.js";

describe("judge spending limit per hour", () => {
  test("exhausted while the last hour's spending reaches the limit, and says when it resumes", () => {
    let now = Date.parse("2026-07-08T10:00:00.000Z");
    const budget = new JudgeBudget({ limitPerHour: 1, now: () => now });
    budget.record(0.6);
    assert.equal(budget.exhausted, false);
    assert.equal(budget.reason, null);
    now += 30 * 60 * 1000;
    budget.record(0.4);
    // 0.6 + 0.4 = 1.0 ≥ 1.
    assert.equal(budget.exhausted, true);
    assert.equal(budget.resumesAt(), Date.parse("2026-07-08T11:00:00.000Z"));
    assert.match(budget.reason ?? "", /1 spent in the last hour, limit 1 per hour in this process; resumes at 2026-07-08T11:00:00.000Z/);
    // An hour after the first spending it leaves the window: 0.4 < 1.
    now = Date.parse("2026-07-08T11:00:00.000Z");
    assert.equal(budget.exhausted, false);
    assert.equal(budget.spentInLastHour(), 0.4);
  });

  test("a zero limit is exhausted from the start and never resumes by itself", () => {
    const budget = new JudgeBudget({ limitPerHour: 0 });
    assert.equal(budget.exhausted, true);
    assert.equal(budget.resumesAt(), null);
    assert.match(budget.reason ?? "", /raise the limit/);
  });

  test("invalid limits and costs are bugs", () => {
    assert.throws(() => new JudgeBudget({ limitPerHour: Number.NaN }), RangeError);
    assert.throws(() => new JudgeBudget({ limitPerHour: 1 }).record(Number.NaN), RangeError);
  });

  test("cost per 1k tokens, and a token estimate for endpoints that report none", () => {
    // 2,000 input tokens at 0.15 per 1k + 500 output tokens at 0.6 per 1k = 0.3 + 0.3.
    assert.ok(Math.abs(costOf({ inputPer1kTokens: 0.15, outputPer1kTokens: 0.6 }, 2000, 500)! - 0.6) < 1e-12);
    // 8 Latin characters ≈ 2 tokens; each Han character at least one.
    assert.equal(estimateTokens("abcdefgh"), 2);
    assert.equal(estimateTokens("年假五天"), 4);
  });
});
