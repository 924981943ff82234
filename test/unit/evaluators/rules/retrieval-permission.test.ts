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
});
