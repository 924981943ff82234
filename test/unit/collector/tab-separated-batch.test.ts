import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { describe, test } from "node:test";
import { toRows } from "../../../store/clickhouse/result-rows.js";
import { tabSeparatedField } from "../../../store/clickhouse/tab-separated.js";
import { batchBodies, caseResultColumns, evaluationResultColumns, metricValueColumns } from "../../../store/clickhouse/tab-separated-batch.js";
import type { CaseResult } from "../../../contracts/case-result.js";
import { createDefaultRegistry } from "../../../evaluators/default-registry.js";
import { evaluateCaseResult, type CaseEvaluation } from "../../../evaluators/evaluate-case-result.js";
import { seedExample } from "../../support/case-results.js";

const awkward = 'tab\there, line\nfeed, return\r, back\\slash, \\N, nul\u0000, "quoted", émoji 🙂';

function evaluations(evaluatedAt: string): CaseEvaluation[] {
  const { caseResult, evalCase } = seedExample();
  const variants: CaseResult[] = [
    caseResult,
    {
      ...caseResult,
      case_result_id: "cr_awkward",
      output: awkward,
      rag_observation: { ...caseResult.rag_observation, service_name: "svc\tx", tenant_id: "\\N", route: "a\nb", latency_ms: Number.NaN },
    },
    { ...caseResult, case_result_id: "cr_partial", output: null, completed_at: null, rag_observation: { ...caseResult.rag_observation, latency_ms: null, partial_trace: true } },
  ];
  const evaluated = variants.map((item, index) => evaluateCaseResult(createDefaultRegistry(), item, index === 2 ? null : evalCase, evaluatedAt));
  const first = evaluated[1]!.evaluationResults[0]!;
  first.reason = awkward;
  first.metric_values = { ...first.metric_values, infinite: Number.POSITIVE_INFINITY, tiny: 1e-9 };
  return evaluated;
}

/** The same rows as `toRows` builds them, encoded field by field. */
function viaRowObjects(rows: readonly Record<string, unknown>[], columns: readonly string[]): string {
  return rows.map((row) => `${columns.map((column) => tabSeparatedField(row[column])).join("\t")}\n`).join("");
}

describe("TabSeparated insert bodies", () => {
  test("fields: escapes, NULL for null and for numbers that are not finite", () => {
    assert.equal(tabSeparatedField(awkward), 'tab\\there, line\\nfeed, return\\r, back\\\\slash, \\\\N, nul\\0, "quoted", émoji 🙂');
    assert.equal(tabSeparatedField(null), "\\N");
    assert.equal(tabSeparatedField(undefined), "\\N");
    assert.equal(tabSeparatedField(Number.NaN), "\\N");
    assert.equal(tabSeparatedField(-0.25), "-0.25");
    assert.equal(tabSeparatedField(1e-9), "1e-9");
    assert.equal(tabSeparatedField(true), "1");
    assert.throws(() => tabSeparatedField({}), /no TabSeparated encoding/);
  });

  test("the bodies hold exactly the rows toRows builds, in the declared column order", () => {
    const batch = evaluations("2026-07-08T09:32:01.000Z");
    const datasetOf = (caseId: string, caseVersion: string) => `dataset of ${caseId} ${caseVersion}`;
    const bodies = batchBodies(batch, datasetOf, 1_234);
    const rows = batch.map((evaluation) => toRows(evaluation, datasetOf(evaluation.caseResult.case_id, evaluation.caseResult.case_version), 1_234));
    for (const row of rows) {
      assert.deepEqual(Object.keys(row.caseResult), [...caseResultColumns]);
      for (const item of row.evaluationResults) assert.deepEqual(Object.keys(item), [...evaluationResultColumns]);
      for (const item of row.metricValues) assert.deepEqual(Object.keys(item), [...metricValueColumns]);
    }
    assert.equal(bodies.metricValues.toString("utf8"), viaRowObjects(rows.flatMap((row) => row.metricValues), metricValueColumns));
    assert.equal(bodies.metricRows, rows.reduce((total, row) => total + row.metricValues.length, 0));
    assert.equal(bodies.evaluationResults.toString("utf8"), viaRowObjects(rows.flatMap((row) => row.evaluationResults), evaluationResultColumns));
    assert.equal(bodies.caseResults.toString("utf8"), viaRowObjects(rows.map((row) => row.caseResult), caseResultColumns));
  });

  test("a body of many chunks, with lines longer than a chunk, characters of 2, 3 and 4 bytes across their ends and escapes, is the rows' exact UTF-8", () => {
    const batch = evaluations("2026-07-08T09:32:01.000Z");
    // ~1.7 MB a line: longer than a chunk of the body (256 KiB), so lines continue across chunks at every offset the mix gives;
    // quotes, line feeds and backslashes are escaped in the payload's JSON, whose backslashes the body escapes again.
    const long = (seed: number) => `${"é".repeat(seed)}${'ab€🙂x"\n\\'.repeat(120_000)}`;
    const big = [0, 1, 2, 3].map((seed) => ({ ...batch[0]!, caseResult: { ...batch[0]!.caseResult, case_result_id: `cr_big_${seed}`, output: long(seed) } }));
    const rows = [...batch, ...big].map((evaluation) => toRows(evaluation, "", 1_234));
    const body = batchBodies([...batch, ...big], () => "", 1_234).caseResults;
    assert.ok(body.length > 4 * 1024 * 1024, `the body is ${body.length} bytes`);
    assert.ok(body.equals(Buffer.from(viaRowObjects(rows.map((row) => row.caseResult), caseResultColumns), "utf8")));
  });

  test("the deduplication token covers the results but not when they were evaluated", () => {
    const batch = evaluations("2026-07-08T09:32:01.000Z");
    const expected = createHash("sha256");
    for (const evaluation of batch) {
      expected.update(JSON.stringify(evaluation.caseResult));
      for (const result of evaluation.evaluationResults) expected.update(JSON.stringify({ ...result, evaluated_at: "" }));
    }
    assert.equal(batchBodies(batch, () => "", 1).token, expected.digest("hex"));
    const later = evaluations("2027-01-01T00:00:00.000Z");
    assert.equal(batchBodies(later, () => "", 2).token, batchBodies(batch, () => "", 1).token, "a replay evaluated later is the same insert");
    later[0]!.evaluationResults[0]!.reason = "another reason";
    assert.notEqual(batchBodies(later, () => "", 2).token, batchBodies(batch, () => "", 1).token, "changed results are a new insert");
  });
});
