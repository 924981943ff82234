import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { formatProblem, parseDataset } from "../../../collector/wiring/dataset/load-dataset.js";
import { datasetMix } from "../../../collector/wiring/dataset/dataset-mix.js";

// shared/seeds/004_7ecd39d5d74f72c6.txt §二.1, verbatim (its line breaks included).
const seedExample = `{
"id": "case_001",
"question": "公司的年假政策是什么？",
"reference_answer": "员工工作满一年后享有5天带薪年假。",
"relevant_document_ids": ["hr_policy_2024"],
"relevant_chunk_ids": ["hr_policy_2024_chunk_12"],
"evidence": [
"员工连续工作满12个月后，每年享有5天带薪年假。"
],
"question_type": "fact",
"difficulty": "medium",
"metadata": {
"department": "HR",
"version": "2024"
}
}`;

describe("the seed's simple dataset format", () => {
  test("the seed's §二.1 example loads verbatim as JSON and says it is the simple format", () => {
    const loaded = parseDataset(seedExample, "cases.json");
    assert.ok(loaded.ok, JSON.stringify(!loaded.ok && loaded.error));
    assert.equal(loaded.value.format, "simple");
    const only = loaded.value.cases[0]!;
    assert.equal(only.case_id, "case_001");
    assert.equal(only.input, "公司的年假政策是什么？");
    assert.equal(only.difficulty, "Medium");
    assert.deepEqual(only.gold_evidence.map((item) => [item.document_id, item.chunk_id, item.text]), [["hr_policy_2024", "hr_policy_2024_chunk_12", "员工连续工作满12个月后，每年享有5天带薪年假。"]]);
    assert.equal(only.dataset_id, "cases");
    assert.match(only.dataset_version, /^sha256-[0-9a-f]{12}$/);
  });

  test("the same case from YAML and JSON Lines", () => {
    const yaml = parseDataset(`- id: case_001\n  question: 公司的年假政策是什么？\n  relevant_document_ids: [hr_policy_2024]\n  question_type: unanswerable\n  metadata: { split: blind }\n`, "cases.yaml");
    assert.ok(yaml.ok, JSON.stringify(!yaml.ok && yaml.error));
    assert.equal(yaml.value.cases[0]!.answerable, false);
    assert.equal(datasetMix(yaml.value.cases).rows.find((row) => row.category === "unanswerable")?.cases, 1);
    const lines = parseDataset(`${seedExample.replace(/\n/g, "")}\n\n{"id": "case_002", "question": "Q?"}\n`, "cases.jsonl");
    assert.ok(lines.ok, JSON.stringify(!lines.ok && lines.error));
    assert.equal(lines.value.cases.length, 2);
  });

  test("malformed files give path-precise errors in the user's field names", () => {
    const bad = parseDataset(JSON.stringify([{ id: "a", question: "q", relevant_chunk_ids: ["c1"], difficulty: "medium" }, { id: "b", question: "", difficulty: "extreme", evidence: [1] }]), "cases.json");
    assert.ok(!bad.ok);
    const lines = bad.error.problems.map(formatProblem);
    assert.ok(lines.some((line) => line.startsWith("[0].relevant_document_ids (case_id a): required when relevant_chunk_ids")), lines.join("\n"));
    assert.ok(lines.some((line) => line.startsWith("[1].question (case_id b)")), lines.join("\n"));
    assert.ok(lines.some((line) => line.startsWith("[1].difficulty (case_id b): must be one of")), lines.join("\n"));
    assert.ok(lines.some((line) => line.startsWith("[1].evidence")), lines.join("\n"));
    const jsonLines = parseDataset(`{"id": "a", "question": "q"}\n{not json}\n`, "cases.jsonl");
    assert.ok(!jsonLines.ok);
    assert.match(formatProblem(jsonLines.error.problems[0]!), /^line 2: invalid JSON/);
  });
});
