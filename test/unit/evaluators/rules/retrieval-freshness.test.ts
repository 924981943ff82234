import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { retrievalFreshnessEvaluator } from "../../../../evaluators/rules/retrieval-freshness.js";
import { effectiveAtOf, versionStatus } from "../../../../evaluators/rules/retrieval-effective-time.js";
import { buildCase } from "../../../support/case-results.js";
import { caseResultWith, valueOf } from "./build-case-result.js";

const at = (text: string) => Date.parse(text);

describe("effective time", () => {
  test("the case's environment_requirements.effective_at wins, then environment.effective_at, then started_at", () => {
    const caseResult = caseResultWith({}, { started_at: "2026-09-01T00:00:00Z" });
    assert.equal(effectiveAtOf(caseResult, buildCase({ environment_requirements: { effective_at: "2026-07-08" }, environment: { effective_at: "2026-01-01" } }))?.source, "environment_requirements.effective_at");
    assert.equal(effectiveAtOf(caseResult, buildCase({ environment: { effective_at: "2026-01-01" } }))?.source, "environment.effective_at");
    const online = effectiveAtOf(caseResult, null);
    assert.equal(online?.source, "started_at");
    assert.equal(online?.instant, at("2026-09-01T00:00:00Z"));
  });

  test("bounds: a date-only effective_to covers its whole day; effective_from is inclusive; no zone means UTC", () => {
    const version = { effective_from: "2026-07-01", effective_to: "2026-07-31" };
    assert.equal(versionStatus(version, at("2026-06-30T23:59:59Z")), "not_yet_in_force");
    assert.equal(versionStatus(version, at("2026-07-01T00:00:00Z")), "in_force");
    assert.equal(versionStatus(version, at("2026-07-31T23:59:59Z")), "in_force");
    assert.equal(versionStatus(version, at("2026-08-01T00:00:00Z")), "expired");
    assert.equal(versionStatus({ effective_from: null, effective_to: "2026-07-08T10:00:00" }, at("2026-07-08T10:00:00Z")), "in_force");
    assert.equal(versionStatus({ effective_from: null, effective_to: "2026-07-08T10:00:00" }, at("2026-07-08T10:00:01Z")), "expired");
    assert.equal(versionStatus({ effective_from: "not a date", effective_to: null }, at("2026-07-08")), "unknown");
  });
});

describe("retrieval.freshness", () => {
  const evalCase = buildCase({ environment_requirements: { effective_at: "2026-07-08" } });

  test("hand-worked: 1 of 2 dated chunks expired; the undated chunk is left out", () => {
    const caseResult = caseResultWith({
      retrieved: [
        { chunk_id: "old", effective_from: "2025-01-01", effective_to: "2026-06-30" },
        { chunk_id: "new", effective_from: "2026-07-01" },
        { chunk_id: "undated" },
      ],
    });
    const { values, evidence, reason } = retrievalFreshnessEvaluator.evaluate({ caseResult, evalCase });
    assert.equal(valueOf(values, "expired_chunk_rate"), 0.5);
    assert.deepEqual(evidence, ["old"]);
    assert.match(reason, /1 chunk\(s\) carry no effective time/);
  });

  test("online traffic uses the request time", () => {
    const caseResult = caseResultWith({ retrieved: [{ chunk_id: "old", effective_to: "2026-06-30" }] }, { started_at: "2026-06-15T08:00:00Z" });
    assert.equal(valueOf(retrievalFreshnessEvaluator.evaluate({ caseResult, evalCase: null }).values, "expired_chunk_rate"), 0);
  });

  test("not applicable without retrieval, with nothing retrieved, or without effective times", () => {
    for (const retrieved of [null, [], [{ chunk_id: "a" }]]) {
      const { values } = retrievalFreshnessEvaluator.evaluate({ caseResult: caseResultWith({ retrieved }), evalCase });
      assert.equal(valueOf(values, "expired_chunk_rate"), null);
    }
  });
});

describe("effective times that are not dates", () => {
  const evalCase = buildCase({ environment_requirements: { effective_at: "2026-07-08" } });

  test("a bound that does not exist or does not parse leaves the version's status unknown, never open", () => {
    // Read as open, a mistyped end date made a version that ended in June count as in force in July.
    assert.equal(versionStatus({ effective_from: "2025-01-01", effective_to: "2026-02-30" }, at("2026-07-08")), "unknown");
    assert.equal(versionStatus({ effective_from: "01/07/2026", effective_to: "2026-06-30" }, at("2026-07-08")), "unknown");
    assert.equal(versionStatus({ effective_from: null, effective_to: "2026-06-30 23:59:59" }, at("2026-07-08")), "expired", "a space for the T is a time");
  });

  test("retrieval.freshness counts only chunks whose bounds are dates, and names the others", () => {
    const caseResult = caseResultWith({
      retrieved: [
        { chunk_id: "old", effective_from: "2025-01-01", effective_to: "2026-06-30" },
        { chunk_id: "mistyped", effective_from: "2025-01-01", effective_to: "2026-02-30" },
        { chunk_id: "new", effective_from: "2026-07-01" },
      ],
    });
    const { values, reason } = retrievalFreshnessEvaluator.evaluate({ caseResult, evalCase });
    assert.equal(valueOf(values, "expired_chunk_rate"), 0.5, "1 of the 2 chunks with dates; the mistyped one is neither in force nor expired");
    assert.match(reason, /1 chunk\(s\) carry an effective time that is not a date \(mistyped \[2025-01-01 – 2026-02-30\]\): whether their version was in force is unknown/);
    const onlyMistyped = retrievalFreshnessEvaluator.evaluate({ caseResult: caseResultWith({ retrieved: [{ chunk_id: "mistyped", effective_to: "2026-13-01" }] }), evalCase });
    assert.equal(valueOf(onlyMistyped.values, "expired_chunk_rate"), null);
    assert.match(onlyMistyped.reason, /not applicable: no retrieved chunk carries an effective time; 1 chunk\(s\) carry an effective time that is not a date/);
  });
});

describe("a case's effective time in a dataset", () => {
  test("is read as strictly as the freshness metrics read it: a date that does not exist is refused when the case loads", async () => {
    const { dateOrDateTime } = await import("../../../../contracts/eval-case.js");
    // Accepted before (Date.parse rolls 2026-02-30 over to 2 March): the case loaded, and every freshness metric of it
    // was then not applicable with no word on which field was wrong.
    for (const text of ["2026-02-30", "2026-07-08T9:31Z", "2026-13-01"]) assert.equal(dateOrDateTime.safeParse(text).success, false, text);
    for (const text of ["2026-07-08", "2026-07-08T09:31:12Z", "2026-07-08 09:31", "2026-07-08T11:30+02:00"]) assert.equal(dateOrDateTime.safeParse(text).success, true, text);
  });
});
