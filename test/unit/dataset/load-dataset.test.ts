import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { formatProblem, parseDataset } from "../../../collector/wiring/dataset/load-dataset.js";

const seedCase = `
case_id: rag_refund_member_points_001
case_version: v2
dataset_id: refund_rag_regression_set
dataset_version: v5
title: 会员部分退款的积分规则检索
risk_level: P1
difficulty: Hard
input: 我用了优惠券只退一件商品，积分会扣回吗？
environment_requirements:
  corpus_version: refund_kb_20260701
  effective_at: 2026-07-08
gold_evidence:
  - document_id: refund_policy_member_points
    section_id: section_2
    text: 部分退款后，会员积分按实际保留金额重新计算
    effective_time: 2026-07-01
evaluation_metrics: [recall_at_k, mrr, context_recall, faithfulness, citation_accuracy]
rubric:
  recall: Top5 必须包含会员积分重新计算规则
`;

describe("dataset files", () => {
  test("the seed's own case loads as one case, with YAML dates kept as text", () => {
    const loaded = parseDataset(seedCase, "case.yaml");
    assert.ok(loaded.ok, JSON.stringify(!loaded.ok && loaded.error));
    assert.equal(loaded.value.cases.length, 1);
    const only = loaded.value.cases[0]!;
    assert.equal(only.case_id, "rag_refund_member_points_001");
    assert.equal(only.gold_evidence[0]!.relevance, 3);
    assert.equal(only.environment_requirements.effective_at, "2026-07-08");
  });

  test("a dataset header fills in dataset_id and dataset_version", () => {
    const text = JSON.stringify({ dataset_id: "d", dataset_version: "v1", cases: [{ case_id: "a", case_version: "1", input: "q" }] });
    const loaded = parseDataset(text, "set.json");
    assert.ok(loaded.ok);
    assert.equal(loaded.value.cases[0]!.dataset_id, "d");
    assert.equal(loaded.value.cases[0]!.dataset_version, "v1");
  });

  test("every problem is reported with its line, path and case id (a missing field at its mapping's line, an unknown one at its own)", () => {
    const text = `
dataset_id: d
dataset_version: v1
cases:
  - case_id: ok_case
    case_version: v1
    input: fine
  - case_id: broken_case
    case_version: v1
    input: q
    risk_level: P9
    gold_evidence:
      - section_id: s1
  - case_version: v1
    input: q
    gold_evidnce: []
`;
    const loaded = parseDataset(text, "set.yaml");
    assert.ok(!loaded.ok);
    const lines = loaded.error.problems.map(formatProblem);
    assert.ok(lines.includes("line 13, cases[1].gold_evidence[0].document_id (case_id broken_case): required"), lines.join("\n"));
    assert.ok(lines.some((line) => line.startsWith("line 11, cases[1].risk_level (case_id broken_case): must be one of")), lines.join("\n"));
    assert.ok(lines.includes("line 14, cases[2].case_id: required"), lines.join("\n"));
    assert.ok(lines.some((line) => line.startsWith('line 16, cases[2].gold_evidnce: unknown field "gold_evidnce"')), lines.join("\n"));
  });

  test("duplicate case ids, YAML syntax errors and empty files are problems, not exceptions", () => {
    const duplicate = parseDataset(JSON.stringify([{ case_id: "a", case_version: "1", dataset_id: "d", dataset_version: "1", input: "q" }, { case_id: "a", case_version: "1", dataset_id: "d", dataset_version: "1", input: "q" }]), "x.json");
    assert.ok(!duplicate.ok);
    assert.match(formatProblem(duplicate.error.problems[0]!), /^\[1\]\.case_id \(case_id a\): duplicate case_id and case_version; first defined at \[0\] — give this case a case_id of its own, or a new case_version if it is a changed version of that case$/);

    const broken = parseDataset("cases: [\n  - a: b\n", "x.yaml");
    assert.ok(!broken.ok);
    assert.match(broken.error.problems[0]!.message, /^invalid YAML/);
    assert.equal(typeof broken.error.problems[0]!.line, "number");
    assert.equal(typeof broken.error.problems[0]!.column, "number");
    // The position is said once, in the place; the message does not repeat it (with a dangling colon).
    const compact = parseDataset("id: x\n  bad: [\n", "x.yaml");
    assert.ok(!compact.ok);
    assert.deepEqual(compact.error.problems.map(formatProblem)[0], "line 1, column 5: invalid YAML: Nested mappings are not allowed in compact mappings");

    const empty = parseDataset("   \n", "x.yaml");
    assert.ok(!empty.ok);
    assert.match(empty.error.problems[0]!.message, /empty/);

    const badJson = parseDataset("{", "x.json");
    assert.ok(!badJson.ok);
    assert.match(badJson.error.problems[0]!.message, /^invalid JSON/);

    // JSON.parse gives a character position; the problem names the line and column a person looks for.
    const trailingComma = parseDataset('{\n  "case_id": "q1",\n}', "x.json");
    assert.ok(!trailingComma.ok);
    assert.equal(trailingComma.error.problems[0]!.message, "invalid JSON: line 3 column 1: Expected double-quoted property name");
  });

  test("an unanswerable case may not list gold evidence", () => {
    const loaded = parseDataset(JSON.stringify({ case_id: "u", case_version: "1", dataset_id: "d", dataset_version: "1", input: "q", answerable: false, gold_evidence: [{ document_id: "x", text: "something long enough" }] }), "u.json");
    assert.ok(!loaded.ok);
    assert.match(formatProblem(loaded.error.problems[0]!), /^gold_evidence \(case_id u\): an unanswerable case/);
  });
});
