import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { extractFacts } from "../../../../evaluators/text/fact-mentions.js";

const numbers = (text: string) => extractFacts(text).numbers.map((mention) => [mention.value, mention.unit]);
const dates = (text: string) => extractFacts(text).dates.map((mention) => mention.iso);
const entities = (text: string) => extractFacts(text).entities.map((mention) => [mention.kind, mention.name]);

describe("numbers", () => {
  test("Arabic numbers with Chinese and English units, canonical", () => {
    assert.deepEqual(numbers("订单满199元包邮，退款15天内处理"), [[199, "CNY"], [15, "day"]]);
    assert.deepEqual(numbers("Express shipping costs 15 dollars and delivers within 2 business days."), [[15, "USD"], [2, "workday"]]);
    assert.deepEqual(numbers("30% off for 3 days, $25"), [[30, "%"], [3, "day"], [25, "USD"]]);
    assert.deepEqual(numbers("1,000积分，1.5万元，3.5小时"), [[1000, "points"], [15_000, "CNY"], [3.5, "hour"]]);
  });

  test("full-width digits and signs arrive as ASCII", () => {
    assert.deepEqual(numbers("运费１５元，优惠２０％，￥８"), [[15, "CNY"], [20, "%"], [8, "CNY"]]);
  });

  test("Chinese numerals need a unit or 百分之", () => {
    assert.deepEqual(numbers("十五天内可以退货，两个工作日审核，百分之十"), [[15, "day"], [2, "workday"], [10, "%"]]);
    assert.deepEqual(numbers("统一安排，一起处理，万一出错"), []);
  });

  test("a range shares the unit written at its end", () => {
    assert.deepEqual(numbers("款项会在3至5个工作日内退回"), [[3, "workday"], [5, "workday"]]);
    assert.deepEqual(numbers("三到五天"), [[3, "day"], [5, "day"]]);
    assert.deepEqual(numbers("Standard shipping takes 3 to 5 business days"), [[3, "workday"], [5, "workday"]]);
  });

  test("digits glued to Latin letters, dates and identifiers are not numbers", () => {
    assert.deepEqual(numbers("v2 mp3 工单ABC-123 于2026-07-08创建"), []);
  });
});

describe("dates", () => {
  test("the written forms normalise to ISO 8601", () => {
    assert.deepEqual(dates("2026-07-08、2026/7/8、2026.7.8、2026年7月8日、2026年7月8号"), Array(5).fill("2026-07-08"));
    assert.deepEqual(dates("July 8, 2026; 8 July 2026; Jul. 8th, 2026"), Array(3).fill("2026-07-08"));
    assert.deepEqual(dates("自2026年7月起"), ["2026-07"]);
    assert.deepEqual(dates("2026年以前，7月8日以后，每年3月"), ["2026", "--07-08", "--03"]);
    assert.deepEqual(dates("from July 2026, on July 8"), ["2026-07", "--07-08"]);
  });

  test("full-width dates", () => {
    assert.deepEqual(dates("２０２６年７月８日"), ["2026-07-08"]);
  });

  test("impossible dates, lower-case 'may' and durations are not dates", () => {
    assert.deepEqual(dates("2026-02-30, you may 5 times, 3个月"), []);
  });
});

describe("entities", () => {
  test("identifiers, quoted terms and capitalised names", () => {
    assert.deepEqual(entities("The Eiffel Tower and the Bank of China; see 工单ABC-123 and GPT-4o"), [
      ["name", "Eiffel Tower"],
      ["name", "Bank of China"],
      ["identifier", "ABC-123"],
      ["identifier", "GPT-4o"],
    ]);
    assert.deepEqual(entities("依据《会员积分规则》和「退款政策」“七天无理由”"), [
      ["quoted", "会员积分规则"],
      ["quoted", "退款政策"],
      ["quoted", "七天无理由"],
    ]);
  });

  test("single capitalised words, sentence openers and month names are not names", () => {
    assert.deepEqual(entities("Yes. In Paris, on July 8 2026, Electronics ship."), []);
  });
});
