/**
 * ragas' published examples (shared/reference/metric-definitions.md §1, from
 * ragas docs/concepts/metrics/available_metrics/traditional.md).
 */
import { describe, test } from "node:test";
import { bleu } from "../../../../evaluators/text/bleu.js";
import { exactMatch } from "../../../../evaluators/text/exact-match.js";
import { levenshteinSimilarity } from "../../../../evaluators/text/levenshtein-similarity.js";
import { rougeL } from "../../../../evaluators/text/rouge-l.js";
import { stringPresence } from "../../../../evaluators/text/string-presence.js";
import { assertClose } from "./metric-assertions.js";

const reference = "The Eiffel Tower is located in Paris.";
const response = "The Eiffel Tower is located in India.";

describe("ragas' published values", () => {
  test("NonLLMStringSimilarity (Levenshtein): 0.8918918918918919", () => {
    assertClose(levenshteinSimilarity(response, reference, { mode: "raw" }), 0.8918918918918919);
  });

  test("BleuScore: 0.7071067811865478 with sacrebleu's 13a tokenizer", () => {
    assertClose(bleu(response, reference, { tokenizer: "13a" }), 0.7071067811865478);
  });

  test("RougeScore (rougeL, fmeasure): 0.8571428571428571", () => {
    assertClose(rougeL(response, reference), 0.8571428571428571);
  });

  test("ExactMatch: 'Paris' vs 'India' is 0, raw and normalised", () => {
    assertClose(exactMatch("India", "Paris", { mode: "raw" }), 0);
    assertClose(exactMatch("India", "Paris"), 0);
  });

  test("StringPresence: 'Eiffel Tower' in the response is 1, raw and normalised", () => {
    assertClose(stringPresence(response, "Eiffel Tower", { mode: "raw" }), 1);
    assertClose(stringPresence(response, "Eiffel Tower"), 1);
  });
});
