import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parseChineseNumeral } from "../../../../evaluators/text/chinese-numeral.js";

describe("parseChineseNumeral", () => {
  test("digits, tens, hundreds, thousands, 万 and 亿", () => {
    const cases: [string, number][] = [
      ["一", 1], ["两", 2], ["十", 10], ["十五", 15], ["二十", 20], ["二十五", 25], ["一百零五", 105], ["一千零一", 1001],
      ["三千", 3000], ["两万", 20_000], ["五十万", 500_000], ["一亿三千万", 130_000_000], ["零", 0],
    ];
    for (const [text, value] of cases) assert.equal(parseChineseNumeral(text), value, text);
  });

  test("a last digit after a unit is a tenth of that unit, the colloquial way", () => {
    assert.equal(parseChineseNumeral("一万五"), 15_000);
    assert.equal(parseChineseNumeral("三千五"), 3_500);
    assert.equal(parseChineseNumeral("一百五"), 150);
  });

  test("ranges, positional digit runs, bare units and other characters are not numbers", () => {
    for (const text of ["三四", "二〇二六", "万", "", "十天", "壹"]) assert.equal(parseChineseNumeral(text), null, text);
  });
});
