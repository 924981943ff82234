import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { accessVerdict, principalOf } from "../../../../evaluators/rules/retrieval-access-control.js";
import { retrievalPermissionEvaluator } from "../../../../evaluators/rules/retrieval-permission.js";
import { buildCase } from "../../../support/case-results.js";
import { caseResultWith, valueOf } from "./build-case-result.js";

describe("access control", () => {
  const principal = { tenantId: "t1", groups: ["hr"], groupsSource: "trace" as const };

  test("tenant first, then the ACL; an empty ACL is public", () => {
    assert.equal(accessVerdict({ tenant_id: "t2", acl: ["hr"] }, principal), "denied_tenant");
    assert.equal(accessVerdict({ tenant_id: "t1", acl: ["finance"] }, principal), "denied_acl");
    assert.equal(accessVerdict({ tenant_id: null, acl: ["finance", "hr"] }, principal), "allowed");
    assert.equal(accessVerdict({ tenant_id: null, acl: [] }, principal), "allowed");
    assert.equal(accessVerdict({ tenant_id: "t1", acl: null }, principal), "allowed");
    assert.equal(accessVerdict({ tenant_id: null, acl: null }, principal), "unknown");
    assert.equal(accessVerdict({ tenant_id: null, acl: ["hr"] }, { tenantId: null, groups: null, groupsSource: null }), "unknown");
  });

  test("the case's environment.permissions stand in for missing principal groups", () => {
    const principal = principalOf(caseResultWith(), buildCase({ environment: { permissions: "policy_read_only" } }));
    assert.deepEqual(principal.groups, ["policy_read_only"]);
    assert.equal(principal.groupsSource, "case");
    assert.equal(principalOf(caseResultWith({ principal_groups: ["a"] }), buildCase({ environment: { permissions: "b" } })).groupsSource, "trace");
  });
});

describe("retrieval.permission", () => {
  test("hand-worked: one ACL violation and one other-tenant chunk among 4 judged chunks; the unjudged chunk is left out", () => {
    const caseResult = caseResultWith({
      tenant_id: "t1",
      principal_groups: ["hr"],
      retrieved: [
        { chunk_id: "ok", acl: ["hr"] },
        { chunk_id: "secret", acl: ["finance"] },
        { chunk_id: "foreign", tenant_id: "t2" },
        { chunk_id: "public", acl: [] },
        { chunk_id: "unknown" },
      ],
    });
    const { values, evidence } = retrievalPermissionEvaluator.evaluate({ caseResult, evalCase: null });
    assert.equal(valueOf(values, "permission_violation_rate"), 2 / 4);
    assert.deepEqual(evidence, ["secret", "foreign"]);
    assert.equal(retrievalPermissionEvaluator.metrics[0]!.defaultThreshold, "= 0");
  });

  test("not applicable without retrieval, without chunks, or without anything to compare", () => {
    for (const input of [{}, { retrieved: [] }, { retrieved: [{ chunk_id: "a", acl: ["hr"] }] }, { principal_groups: ["hr"], retrieved: [{ chunk_id: "a" }] }]) {
      assert.equal(valueOf(retrievalPermissionEvaluator.evaluate({ caseResult: caseResultWith(input), evalCase: null }).values, "permission_violation_rate"), null);
    }
  });
  test("a rerank whose output is not available: the first stage's chunks are judged, none said to be dropped by the rerank", () => {
    const caseResult = caseResultWith({
      principal_groups: ["hr"],
      retrieved: null,
      preRerank: [
        { chunk_id: "ok", acl: ["hr"] },
        { chunk_id: "secret", acl: ["finance"] },
      ],
    });
    const { values, reason } = retrievalPermissionEvaluator.evaluate({ caseResult, evalCase: null });
    assert.equal(valueOf(values, "permission_violation_rate"), 1 / 2);
    assert.equal(reason, "chunks the principal may not read: secret (acl finance; retrieved by the first stage; the rerank's output is not available, so whether it kept it is not known)");

    const readable = caseResultWith({ principal_groups: ["hr"], retrieved: null, preRerank: [{ chunk_id: "ok", acl: ["hr"] }] });
    assert.equal(
      retrievalPermissionEvaluator.evaluate({ caseResult: readable, evalCase: null }).reason,
      "all 1 judged chunks are readable by the principal (every chunk the first stage retrieved; the rerank's output is not available, so the chunks after it are not judged)",
    );
  });
});
