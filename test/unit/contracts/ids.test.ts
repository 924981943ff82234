/**
 * Deterministic ids must never change between releases: a replay after an
 * upgrade has to produce the ids already stored, or ReplacingMergeTree keeps
 * both rows. Expected ids were recorded with Python's hashlib
 * (test/data/ids/record_ids.py, command in its docstring), not with this code.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { caseResultIdFor, deterministicId, evaluationResultIdFor } from "../../../contracts/ids.js";

interface RecordedId {
  prefix: string;
  parts: string[];
  id: string;
}

const recorded = JSON.parse(readFileSync(new URL("../../data/ids/ids.json", import.meta.url), "utf8")) as RecordedId[];

test("deterministic ids equal the ones Python's hashlib gives for the same parts", () => {
  assert.ok(recorded.length >= 10);
  for (const { prefix, parts, id } of recorded) assert.equal(deterministicId(prefix, ...parts), id, `${prefix} ${JSON.stringify(parts)}`);
});

test("moving a character between parts changes the id", () => {
  const byParts = new Map(recorded.map((entry) => [JSON.stringify([entry.prefix, entry.parts]), entry.id]));
  assert.notEqual(byParts.get(JSON.stringify(["er", ["ab", "c"]])), byParts.get(JSON.stringify(["er", ["a", "bc"]])));
});

test("the case and evaluation result ids are the recorded ones", () => {
  const find = (prefix: string, parts: string[]) => recorded.find((entry) => entry.prefix === prefix && JSON.stringify(entry.parts) === JSON.stringify(parts))!.id;
  assert.equal(caseResultIdFor({ traceId: "0af7651916cd43dd8448eb211c80319c", runId: "", caseId: "", caseVersion: "" }), find("cr", ["trace", "0af7651916cd43dd8448eb211c80319c"]));
  assert.equal(caseResultIdFor({ traceId: "t", runId: "run-2026-12-01", caseId: "case-17", caseVersion: "v3" }), find("cr", ["run", "run-2026-12-01", "case-17", "v3"]));
  assert.equal(
    caseResultIdFor({ traceId: "0af7651916cd43dd8448eb211c80319c", runId: "", caseId: "", caseVersion: "", authenticatedTenant: "acme" }),
    find("cr", ["tenant", "acme", "trace", "0af7651916cd43dd8448eb211c80319c"]),
  );
  assert.equal(evaluationResultIdFor("cr_5f2b8c0e2a9d4c1b8e7f6a5d4c3b2a19", "context_precision", "1.2.0"), find("er", ["cr_5f2b8c0e2a9d4c1b8e7f6a5d4c3b2a19", "context_precision", "1.2.0"]));
});

test("a run's result id includes the tenant its spans claim; without one, and for online traffic, the id is the earlier releases'", () => {
  const find = (prefix: string, parts: string[]) => recorded.find((entry) => entry.prefix === prefix && JSON.stringify(entry.parts) === JSON.stringify(parts))!.id;
  const run = { traceId: "t", runId: "run-2026-12-01", caseId: "case-17", caseVersion: "v3" };
  const withoutTenant = find("cr", ["run", "run-2026-12-01", "case-17", "v3"]);
  // Two tenants' runs of one id over one dataset: one result each, never one replacing the other.
  assert.equal(caseResultIdFor({ ...run, claimedTenant: "acme" }), find("cr", ["tenant", "acme", "run", "run-2026-12-01", "case-17", "v3"]));
  assert.notEqual(caseResultIdFor({ ...run, claimedTenant: "acme" }), caseResultIdFor({ ...run, claimedTenant: "globex" }));
  // The tenant the result is stored under: the credential's, whatever the span claims.
  assert.equal(caseResultIdFor({ ...run, authenticatedTenant: "acme", claimedTenant: "globex" }), caseResultIdFor({ ...run, claimedTenant: "acme" }));
  for (const claimedTenant of [undefined, null, ""]) assert.equal(caseResultIdFor({ ...run, claimedTenant }), withoutTenant, `claimed tenant ${JSON.stringify(claimedTenant)}`);
  // Online traffic keys by trace id, which two tenants share only by copying: a claim leaves its id as stored before.
  const trace = { traceId: "0af7651916cd43dd8448eb211c80319c", runId: "", caseId: "", caseVersion: "" };
  assert.equal(caseResultIdFor({ ...trace, claimedTenant: "acme" }), find("cr", ["trace", "0af7651916cd43dd8448eb211c80319c"]));
});
