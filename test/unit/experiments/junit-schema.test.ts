/**
 * The JUnit file against the published JUnit schemas (test/data/junit), with
 * libxml2 as the validator: every kind of row (pass, failure, error, skipped,
 * a review as a failure or, when an evaluator errored, an error),
 * text XML cannot hold, and a broken document the validator must refuse (so
 * a validator that accepts everything would fail this test).
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { caseSuite, junitDocument } from "../../../experiments/output/junit-report.js";
import type { CaseRow } from "../../../experiments/output/case-rows.js";
import { gateSuite } from "../../../experiments/output/gate-junit-suite.js";
import type { GateRuleResult } from "../../../evaluators/gates/release-gate.js";
import { junitSchemaErrors } from "../../support/junit-schema.js";

const junitReport = (name: string, className: string, rows: readonly CaseRow[], timestamp: string) => junitDocument([caseSuite(name, className, rows)], timestamp);

const row = (overrides: Partial<CaseRow>): CaseRow => ({ caseId: "case", caseVersion: "v1", executionStatus: "completed", qualityStatus: "passed", error: null, failed: [], errored: [], reviewSignals: [], rootCause: null, latencyMs: null, ...overrides });

describe("JUnit report against the JUnit XML schemas", () => {
  test("passed, failed, errored and skipped cases, with markup and control characters in the text, are valid against both schemas", async () => {
    const xml = junitReport("ragscope eval run <1> & \"quoted\"", "refund_rag_regression_set@v5", [
      row({ caseId: "passes", latencyMs: 1234567.891 }),
      row({ caseId: "fails", qualityStatus: "failed", rootCause: "RETRIEVAL_MISS: <gold> not retrieved", failed: [{ evaluatorId: "retrieval", reason: "recall_at_5 0 < 0.9 & more\u0001" }] }),
      row({ caseId: "errors", executionStatus: "failed", qualityStatus: "not_evaluated", error: { type: "timeout", message: "the task did not answer within 1500 ms" } }),
      row({ caseId: "unjudged", qualityStatus: "unjudged", latencyMs: 0.2 }),
      row({ caseId: "review", qualityStatus: "review_required", reviewSignals: [{ evaluatorId: "online.groundedness", reason: "claims without overlap: \"<x>\"" }] }),
      row({ caseId: "review-errored", qualityStatus: "review_required", errored: [{ evaluatorId: "retrieval.ranking", errorType: "invalid_evidence", reason: "invalid input: chunk \"a\" listed twice" }] }),
    ], "2026-12-01T10:15:30.123Z");
    assert.deepEqual(await junitSchemaErrors(xml), { "JUnit.xsd": [], "junit-10.xsd": [] });
    // Times in seconds from the traces' latencies: 1234567.891 ms → 1234.568 s; 0.2 ms → 0.000; none → 0; the suite their sum.
    assert.match(xml, /<testcase name="passes@v1" classname="[^"]*" time="1234\.568"\/>/);
    assert.match(xml, /<testcase name="unjudged@v1" classname="[^"]*" time="0\.000">/);
    assert.match(xml, /<testcase name="errors@v1" classname="[^"]*" time="0">/);
    assert.match(xml, /<testsuite [^>]*time="1234\.568"/);
  });

  test("the release gate's suite beside the cases': an errored rule is an <error>, a veto case and the run's problems red too, valid against both schemas", async () => {
    const rule = (metric: string, status: GateRuleResult["status"], value: number | null, errors?: Record<string, number>): GateRuleResult => ({ rule: { section: "generation", metric, threshold: ">= 0.9", window: null, minSamples: null }, status, value, reason: `${metric} <reason> & more`, ...(errors ? { errors } : {}) });
    const gate = gateSuite({
      gate: { passed: false, undecided: true, rules: [rule("faithfulness", "error", null, { timeout: 2 }), rule("completeness", "passed", 0.95)], counts: { passed: 1, failed: 0, not_available: 0, error: 1 } },
      vetoCases: 2,
      vetoed: ["p0_case"],
      problems: ["baseline run \"b\" has no stored results in <store>"],
    });
    assert.deepEqual([gate.tests, gate.failures, gate.errors, gate.skipped], [4, 1, 2, 0]);
    const xml = junitDocument([caseSuite("cases", "set@1", [row({})]), gate], "2026-12-01T10:15:30.000Z");
    assert.deepEqual(await junitSchemaErrors(xml), { "JUnit.xsd": [], "junit-10.xsd": [] });
    assert.match(xml, /<testcase name="generation\.faithfulness &gt;= 0\.9" classname="release gate" time="0">\n\s+<error message="generation\.faithfulness = not measured, threshold &gt;= 0\.9: its evaluations errored, so the gate could not decide" type="timeout">/);
    assert.match(xml, /<failure message="1 of 2 veto case\(s\) did not pass[^"]*: p0_case" type="veto">/);
    assert.match(xml, /<testcase name="run problems" classname="release gate" time="0">\n\s+<error message="the gate could not decide: 1 problem\(s\) with the run" type="undecided">baseline run &quot;b&quot; has no stored results in &lt;store&gt;<\/error>/);
  });

  test("an empty run is valid too", async () => {
    assert.deepEqual(await junitSchemaErrors(junitReport("empty", "set@1", [], "2026-12-01T10:15:30.000Z")), { "JUnit.xsd": [], "junit-10.xsd": [] });
  });

  test("the validator refuses what the schema forbids: a testcase without a name, a timestamp with a zone", async () => {
    const valid = junitReport("suite", "set@1", [row({})], "2026-12-01T10:15:30.000Z");
    const withoutName = await junitSchemaErrors(valid.replace(/ name="case@v1"/, ""));
    assert.ok(withoutName["JUnit.xsd"].length > 0 && withoutName["junit-10.xsd"].length > 0);
    const zoned = await junitSchemaErrors(valid.replace('timestamp="2026-12-01T10:15:30"', 'timestamp="2026-12-01T10:15:30Z"'));
    assert.ok(zoned["JUnit.xsd"].some((message) => /timestamp/.test(message)), JSON.stringify(zoned));
  });
});
