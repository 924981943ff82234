/**
 * The words an injection pattern's matches hold (evaluators/online/
 * injection-patterns.ts `words`): a text with none of a pattern's words is not
 * run through it, so a match without one of them would be an injection never
 * found. Checked on texts the pattern itself describes: randexp (a generator
 * of strings a regular expression matches) writes thousands of each
 * pattern's matches — its negation look-behinds left out, which randexp
 * cannot read and which only rule matches out — set among ordinary words.
 * Every match of every pattern in them must hold one of its words, and the
 * scan with the words (findInjections) must find what running every pattern
 * finds.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import RandExp from "randexp";
import { seededRandom } from "../../../core/seeded-random.js";
import { findInjections } from "../../../evaluators/online/find-injections.js";
import { INJECTION_PATTERNS, injectionSearchText } from "../../../evaluators/online/injection-patterns.js";

/** `source` without its `(?<!…)` groups (balanced parentheses; escaped ones skipped). */
function withoutLookBehinds(source: string): string {
  let result = "";
  for (let index = 0; index < source.length; index += 1) {
    if (!source.startsWith("(?<!", index)) {
      result += source[index];
      continue;
    }
    let depth = 0;
    for (; index < source.length; index += 1) {
      if (source[index] === "\\") index += 1;
      else if (source[index] === "(") depth += 1;
      else if (source[index] === ")" && --depth === 0) break;
    }
  }
  return result;
}

const ORDINARY = ["员工每年享有十天年假。", "Refunds are accepted within 15 days. ", "请在系统中提交申请，", "the policy applies to all staff; ", ""];

/** Texts holding matches of every pattern: `perPattern` of each, each among ordinary words. */
function textsOfThePatterns(perPattern: number, seed: number): string[] {
  const random = seededRandom(seed);
  const pick = (items: readonly string[]) => items[Math.floor(random() * items.length)]!;
  const texts: string[] = [];
  for (const { pattern } of INJECTION_PATTERNS) {
    const generator = new RandExp(new RegExp(withoutLookBehinds(pattern.source), "u"));
    generator.randInt = (low, high) => low + Math.floor(random() * (high - low + 1));
    generator.max = 3;
    for (let index = 0; index < perPattern; index += 1) texts.push(`${pick(ORDINARY)}${generator.gen()}${pick(ORDINARY)}`);
  }
  return texts;
}

describe("the words each injection pattern's matches hold", () => {
  test("every match of every pattern, in 3,000 texts written from each pattern, holds one of its words", () => {
    const matches = INJECTION_PATTERNS.map(() => 0);
    for (const text of textsOfThePatterns(3_000, 20261207)) {
      const searchText = injectionSearchText(text);
      INJECTION_PATTERNS.forEach(({ pattern, words }, index) => {
        for (const match of searchText.matchAll(pattern)) {
          matches[index]! += 1;
          assert.ok(words.some((word) => match[0].includes(word)), `pattern ${index} (${pattern.source.slice(0, 60)}…) matched "${match[0]}" in "${searchText}", which holds none of its words ${JSON.stringify(words)}`);
        }
      });
    }
    // Most written matches are matched again (a few are ruled out by a negation the ordinary words hold, or changed by the search text's folding).
    matches.forEach((count, index) => assert.ok(count >= 1_500, `pattern ${index} matched ${count} times: its written texts do not exercise it`));
  });

  test("findInjections finds in those texts what running every pattern finds", () => {
    let found = 0;
    for (const text of textsOfThePatterns(500, 7)) {
      const searchText = injectionSearchText(text);
      const everyPattern = INJECTION_PATTERNS.reduce((sum, { pattern }) => sum + [...searchText.matchAll(pattern)].length, 0);
      const findings = findInjections(text).length;
      // One instruction matched by two families is reported once, so findings may be fewer than matches; none is lost.
      assert.ok(findings <= everyPattern && (everyPattern === 0) === (findings === 0), `"${text}": ${findings} findings, ${everyPattern} matches`);
      found += findings;
    }
    assert.ok(found >= 4_000, `only ${found} findings in ${INJECTION_PATTERNS.length * 500} texts`);
  });
});
