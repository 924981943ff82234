import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { factAgreement } from "../../../../evaluators/text/fact-agreement.js";
import { assertClose, assertNotApplicable } from "./metric-assertions.js";

describe("factAgreement", () => {
  test("the same numbers in other forms agree: 十五天 = 15天 = 15日, 3至5个工作日 = 3-5个工作日", () => {
    const agreement = factAgreement("您可以在十五天内退货，退款3-5个工作日到账", "退货期限为15日，退款在3至5个工作日内到账");
    assertClose(agreement.numberAgreement, 1);
    assert.deepEqual(agreement.contradictions, []);
  });

  test("a different value for the same unit is a contradiction, and the number is missing", () => {
    // Reference numbers: 15 day, 10 CNY. The answer states 7 day and 10 CNY: 1 of 2.
    const agreement = factAgreement("7天内可退货，邮费10元", "15天内可退货，邮费10元");
    assertClose(agreement.numberAgreement, 1 / 2);
    assert.equal(agreement.contradictions.length, 1);
    assert.equal(agreement.contradictions[0]!.reference.value, 15);
    assert.deepEqual(agreement.contradictions[0]!.answer.map((mention) => mention.value), [7]);
  });

  test("equal durations in other units agree, in Chinese and English: a year is 12 months, a week 7 days, a day 24 hours; inexact ones stay apart", () => {
    const agree: [string, string][] = [
      ["员工连续工作满12个月后享有年假", "员工工作满一年后享有年假"],
      ["退款在14天内到账", "退款在两周内到账"],
      ["合同期为18个月", "合同期为1.5年"],
      ["The warranty lasts 24 months.", "The warranty lasts 2 years."],
      ["Refunds arrive within 7 days.", "Refunds arrive within 1 week."],
      ["The link expires after 180 minutes.", "The link expires after 3 hours."],
      ["客服会在1天内回复", "客服会在24小时内回复"],
    ];
    for (const [answer, reference] of agree) {
      const agreement = factAgreement(answer, reference);
      assertClose(agreement.numberAgreement, 1);
      assert.deepEqual(agreement.contradictions, [], answer);
    }
    // A month is 28 to 31 days, a year 365 or 366, and a workday is not a day: not converted.
    for (const [answer, reference] of [
      ["积分30天后过期", "积分1个月后过期"],
      ["Points expire after 365 days.", "Points expire after 1 year."],
      ["退款2天内到账", "退款2个工作日内到账"],
    ]) {
      const agreement = factAgreement(answer!, reference!);
      assertClose(agreement.numberAgreement, 0);
      // Another kind of measure: missing, but no contradiction of the reference's value.
      assert.deepEqual(agreement.contradictions, [], answer);
    }
  });

  test("another length of the same kind of duration is a contradiction: 6 months against 1 year", () => {
    const agreement = factAgreement("试用期为6个月", "试用期为一年");
    assertClose(agreement.numberAgreement, 0);
    assert.deepEqual(agreement.contradictions.map((contradiction) => [contradiction.reference.value, contradiction.reference.unit, contradiction.answer.map((mention) => `${mention.value} ${mention.unit}`)]), [[1, "year", ["6 month"]]]);
  });

  test("one duration written twice in the reference is one number: 满一年（12个月）", () => {
    // Reference numbers: 1 year and 12 months, the same duration; 5 day. The answer states 12个月 and 5天: 2 of 2.
    assertClose(factAgreement("满12个月后享有5天年假", "满一年（12个月）后享有5天年假").numberAgreement, 1);
  });

  test("a number without a unit agrees with the same value with a unit", () => {
    assertClose(factAgreement("The fee is 15.", "Express shipping costs 15 dollars.").numberAgreement, 1);
  });

  test("dates agree across formats; a year-less day agrees with a full date", () => {
    const agreement = factAgreement("新规则从7月1日开始执行，7/15截止", "新规则自2026年7月1日起生效，2026-07-15截止");
    // 2026-07-01 agrees with --07-01; 2026-07-15 has no counterpart (7/15 is not read): 1 of 2.
    assertClose(agreement.dateAgreement, 1 / 2);
    assert.deepEqual(agreement.missingDates.map((mention) => mention.iso), ["2026-07-15"]);
  });

  test("a month does not agree with a day in that month", () => {
    assertClose(factAgreement("2026年7月8日起包邮", "自2026年7月起包邮").dateAgreement, 0);
  });

  test("entities: ids and quoted terms are looked for in the answer", () => {
    const agreement = factAgreement("请提交工单 abc-123，并查看会员积分规则", "请提交工单ABC-123，依据《会员积分规则》和《退款政策》");
    // ABC-123 found (case and spacing ignored), 会员积分规则 found, 退款政策 missing: 2 of 3.
    assertClose(agreement.entityAgreement, 2 / 3);
    assert.deepEqual(agreement.missingEntities.map((mention) => mention.name), ["退款政策"]);
  });

  test("not applicable when the reference states no number, date or entity; never NaN on empty text", () => {
    const none = factAgreement("电子发票会自动开具", "电子发票随订单自动开具，无需另行申请。");
    assertNotApplicable(none.numberAgreement);
    assertNotApplicable(none.dateAgreement);
    assertNotApplicable(none.entityAgreement);
    const empty = factAgreement("", "");
    assertNotApplicable(empty.numberAgreement);
    assertClose(factAgreement("", "满199元包邮").numberAgreement, 0);
  });
});
