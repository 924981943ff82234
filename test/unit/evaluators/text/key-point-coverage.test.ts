import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { KEY_POINT_RECALL_THRESHOLD, keyPointCoverage } from "../../../../evaluators/text/key-point-coverage.js";
import { contentTokens } from "../../../../evaluators/text/stop-words.js";
import { assertClose, assertNotApplicable } from "./metric-assertions.js";

describe("contentTokens", () => {
  test("drops the listed function words, keeps negations", () => {
    assert.deepEqual(contentTokens(["积", "分", "是", "不", "会", "的"]), ["积", "分", "不", "会"]);
    assert.deepEqual(contentTokens(["the", "item", "is", "not", "covered"]), ["item", "not", "covered"]);
    assert.deepEqual(contentTokens(["的", "the"]), ["的", "the"], "all stop words: keep them rather than nothing");
  });
});

describe("keyPointCoverage", () => {
  test("a paraphrase covers the key point: 11 of its 13 characters are in the answer", () => {
    const coverage = keyPointCoverage("积分会按保留金额重新计算", ["积分按实际保留金额重新计算"]);
    assertClose(coverage.completeness, 1);
    assert.equal(coverage.verdicts[0]!.rule, "tokens");
    assert.ok(Math.abs(coverage.verdicts[0]!.recall - 11 / 13) < 1e-12);
  });

  test("the seed's missing point: 年假需提前三天申请 is not covered by an answer about 5 days of leave", () => {
    // Key point content tokens: 年 假 需 提 前 三 天 申 请 (9). Answer tokens include 年, 假, 天: recall 3/9 < 0.6.
    // Facts: 三天 = 3 day, and the answer states only 5 day.
    const coverage = keyPointCoverage("员工每年享有5天年假，且未使用的年假可折现。", ["员工每年享有5天年假", "年假需提前三天申请"]);
    assertClose(coverage.completeness, 1 / 2);
    assert.deepEqual(coverage.missing, ["年假需提前三天申请"]);
    assert.ok(coverage.verdicts[1]!.recall < KEY_POINT_RECALL_THRESHOLD);
  });

  test("numbers stated differently still cover: 退货期限为15天 vs 十五天内可以退货", () => {
    // Content tokens 退 货 期 限 为 15 天 (7); the answer has 退 货 天: recall 3/7 < 0.6, but 15 day is stated.
    const coverage = keyPointCoverage("十五天内可以退货", ["退货期限为15天"]);
    assertClose(coverage.completeness, 1);
    assert.equal(coverage.verdicts[0]!.rule, "facts");
  });

  test("English: stop words do not count toward coverage", () => {
    // "accidental damage is not covered" → content accidental, damage, not, covered; the answer has none but "is".
    const coverage = keyPointCoverage("Electronics have a one-year warranty, and it is free.", ["one-year limited warranty", "accidental damage is not covered"]);
    // Key point 1: one, year, limited, warranty → 3 of 4 = 0.75 ≥ 0.6.
    assertClose(coverage.completeness, 1 / 2);
    assert.deepEqual(coverage.missing, ["accidental damage is not covered"]);
  });

  test("a key point whose negation the answer drops is not covered", () => {
    // 并非所有订单都可退款: content 非 所 有 订 单 可 退 款 (并 and 都 are stop characters); the answer has 7 of 8,
    // recall 0.875, but no negation of the 不/非 family (无 of 无条件 is another family).
    const coverage = keyPointCoverage("所有订单都可以无条件全额退款", ["并非所有订单都可退款"]);
    assertClose(coverage.completeness, 0);
    assert.ok(Math.abs(coverage.verdicts[0]!.recall - 7 / 8) < 1e-12);
    assertClose(keyPointCoverage("不是所有订单都可以退款", ["并非所有订单都可退款"]).completeness, 1);
    assertClose(keyPointCoverage("Accidental damage isn't covered.", ["accidental damage is not covered"]).completeness, 1);
    assertClose(keyPointCoverage("Accidental damage is covered.", ["accidental damage is not covered"]).completeness, 0);
  });

  test("no key points, or only blank ones: not applicable; an empty answer covers nothing", () => {
    assertNotApplicable(keyPointCoverage("anything", []).completeness);
    assertNotApplicable(keyPointCoverage("anything", ["", " 。"]).completeness);
    assertClose(keyPointCoverage("", ["满199元包邮"]).completeness, 0);
  });
});
