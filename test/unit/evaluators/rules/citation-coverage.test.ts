import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { splitSentences as splitAnswerSentences } from "../../../../evaluators/text/answer-sentences.js";
import { citationCoverageEvaluator } from "../../../../evaluators/rules/citation-coverage.js";
import { caseResultWith, valueOf } from "./build-case-result.js";

describe("answer sentences", () => {
  test("split on 。！？, on .!? before white space, on line breaks; decimals stay whole; a trailing marker joins its sentence", () => {
    const sentences = splitAnswerSentences("年假为5天。[1]病假呢？请看 v1.2 规定!\nOvertime is 1.5x. [2] Done");
    assert.deepEqual(
      sentences.map((sentence) => sentence.text),
      ["年假为5天[1]。", "病假呢？", "请看 v1.2 规定!", "Overtime is 1.5x[2].", "Done"],
    );
    assert.deepEqual(sentences[0]!.markers, ["[1]"]);
    assert.deepEqual(splitAnswerSentences("1. 年假为5天。\n三、 \n。").map((sentence) => sentence.text), ["年假为5天。"]);
  });
});

describe("citation.coverage", () => {
  const retrieved = [
    { chunk_id: "leave-1", text: "员工每年享有5天年假" },
    { chunk_id: "sick-1", text: "病假需提供医院证明" },
  ];

  test("hand-worked: a marker, a restatement of a cited chunk, and an uncited claim", () => {
    const caseResult = caseResultWith({ retrieved, citations: ["leave-1"], output: "年假规定见【员工手册】。员工每年享有5天年假。未休年假可折现。" });
    const { values, evidence, reason } = citationCoverageEvaluator.evaluate({ caseResult, evalCase: null });
    assert.equal(valueOf(values, "citation_coverage"), 2 / 3);
    assert.deepEqual(evidence, ["leave-1"]);
    assert.match(reason, /"未休年假可折现。"/);
  });

  test("a sentence naming a cited chunk id carries a citation; an uncited chunk's text does not count", () => {
    const caseResult = caseResultWith({ retrieved, citations: ["leave-1"], output: "See leave-1 for details. 病假需提供医院证明。" });
    assert.equal(valueOf(citationCoverageEvaluator.evaluate({ caseResult, evalCase: null }).values, "citation_coverage"), 1 / 2);
  });

  test("not applicable: no citation stage, an abstention, no answer", () => {
    for (const input of [{ output: "x." }, { output: "资料不足。", citations: [], abstained: true }, { citations: ["a"] }, { citations: ["a"], output: "   " }]) {
      assert.equal(valueOf(citationCoverageEvaluator.evaluate({ caseResult: caseResultWith(input), evalCase: null }).values, "citation_coverage"), null);
    }
    assert.equal(citationCoverageEvaluator.confidence, "heuristic");
  });
});
