/**
 * The gate file contract (contracts/gate-file.ts): the seed's release gate
 * (004 §十三) parses as written, alert options are checked, and every
 * threshold it accepts is one evaluators/threshold.ts can compare.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { parse } from "yaml";
import { parseGateFile, THRESHOLD_SYNTAX } from "../../../contracts/gate-file.js";
import { parseThreshold } from "../../../evaluators/threshold.js";

// The seed's example, verbatim in content (004 §十三).
const SEED_EXAMPLE = `
retrieval:
  recall_at_5: ">= 0.90"
  mrr: ">= 0.80"
generation:
  faithfulness: ">= 0.92"
  answer_correctness: ">= 0.85"
  completeness: ">= 0.82"
  citation_accuracy: ">= 0.95"
boundary:
  no_answer_accuracy: ">= 0.90"
  hallucination_rate: "<= 0.03"
  permission_leak_rate: "= 0"
performance:
  p95_latency_ms: "<= 5000"
  error_rate: "<= 0.01"
  average_cost: "<= 0.05"
regression:
  critical_case_pass_rate: "= 1.0"
  overall_score_drop: "<= 0.02"
`;

function problems(yamlText: string): string[] {
  const parsed = parseGateFile(parse(yamlText));
  assert.equal(parsed.ok, false, "expected the file to be refused");
  return parsed.ok ? [] : parsed.error.map((problem) => `${problem.path}: ${problem.message}`);
}

describe("gate file", () => {
  test("the seed's release gate parses into rules in file order", () => {
    const parsed = parseGateFile(parse(SEED_EXAMPLE));
    assert.ok(parsed.ok);
    assert.equal(parsed.value.length, 14);
    assert.deepEqual(parsed.value[0], { section: "retrieval", metric: "recall_at_5", threshold: ">= 0.90", window: null, minSamples: null });
    assert.deepEqual(
      parsed.value.map((rule) => rule.metric),
      ["recall_at_5", "mrr", "faithfulness", "answer_correctness", "completeness", "citation_accuracy", "no_answer_accuracy", "hallucination_rate", "permission_leak_rate", "p95_latency_ms", "error_rate", "average_cost", "critical_case_pass_rate", "overall_score_drop"],
    );
    assert.deepEqual(parsed.value.at(-1), { section: "regression", metric: "overall_score_drop", threshold: "<= 0.02", window: null, minSamples: null });
  });

  test("a rule may carry alert options", () => {
    const parsed = parseGateFile(parse(`performance:\n  p95_latency_ms: { threshold: "<= 5000", window: 15m, min_samples: 50 }\n`));
    assert.ok(parsed.ok);
    assert.deepEqual(parsed.value, [{ section: "performance", metric: "p95_latency_ms", threshold: "<= 5000", window: "15m", minSamples: 50 }]);
  });

  test("problems name where they are", () => {
    assert.deepEqual(problems(`retrieval:\n  mrr: "at least 0.8"\n`), ['retrieval.mrr: must be a threshold such as ">= 0.9", "<= 5000" or "= 0"']);
    assert.ok(problems(`performance:\n  error_rate: { threshold: "<= 0.01", window: "15 minutes" }\n`).some((problem) => problem.startsWith("performance.error_rate")));
    assert.ok(problems(`performance:\n  error_rate: { threshold: "<= 0.01", min_sample: 5 }\n`).some((problem) => problem.startsWith("performance.error_rate")));
    assert.deepEqual(problems(`retrieval:\n  mrr: ">= 0.8"\ngeneration:\n  mrr: ">= 0.7"\n`), ["generation.mrr: already declared in section retrieval; declare each metric once"]);
    assert.deepEqual(problems(`retrieval: {}\n`), ["retrieval: the section declares no metric"]);
    assert.deepEqual(problems(""), [": the gate file is empty"]);
    assert.ok(problems(`Retrieval:\n  mrr: ">= 0.8"\n`).length > 0, "section names are snake_case");
  });

  test("the threshold syntax accepts exactly what evaluators/threshold.ts parses", () => {
    const samples = [">= 0.90", "<= 5000", "= 0", "== 1", "!= 0", "> 0.5", "< 3", ">=-1", "<= 1e-3", ">= .5", "=> 0.9", ">= 0.9 ms", "0.9", ">=", "≥ 0.9", "<= 1.5e3"];
    for (const sample of samples) assert.equal(THRESHOLD_SYNTAX.test(sample), parseThreshold(sample).ok, sample);
  });
});
