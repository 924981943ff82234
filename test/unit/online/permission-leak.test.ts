/**
 * Permission leak into the context and the citations (evaluators/online/
 * permission-leak.ts), with the access rule of rules/retrieval-access-control.ts.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { createDefaultRegistry } from "../../../evaluators/default-registry.js";
import { evaluateCaseResult } from "../../../evaluators/evaluate-case-result.js";
import { permissionLeakEvaluator } from "../../../evaluators/online/permission-leak.js";
import { retrievalPermissionEvaluator } from "../../../evaluators/rules/retrieval-permission.js";
import { onlineCaseResult } from "../../support/online-case-results.js";

const retrieved = [
  { chunk_id: "public_1", text: "公开制度", acl: [], tenant_id: "acme" },
  { chunk_id: "hr_only", text: "薪资表", acl: ["hr"], tenant_id: "acme" },
  { chunk_id: "other_tenant", text: "别家合同", acl: [], tenant_id: "globex" },
  { chunk_id: "staff_doc", text: "员工手册", acl: ["staff", "hr"], tenant_id: "acme" },
];

describe("permission leak", () => {
  test("a cited chunk outside the principal's groups and another tenant's packed chunk leak", () => {
    const output = permissionLeakEvaluator.evaluate({
      caseResult: onlineCaseResult({ retrieved, tenantId: "acme", principalGroups: ["staff"], contextChunkIds: ["public_1", "other_tenant", "staff_doc"], citations: ["hr_only", "staff_doc"] }),
      evalCase: null,
    });
    // Cited: hr_only denied (acl hr), staff_doc allowed → 1/2. Reached: public_1, other_tenant, staff_doc, hr_only → leak.
    assert.deepEqual(output.values.cited_permission_violation_rate, { applicable: true, value: 0.5 });
    assert.deepEqual(output.values.permission_leak_rate, { applicable: true, value: 1 });
    assert.deepEqual(output.evidence.sort(), ["hr_only", "other_tenant"]);
    assert.match(output.reason, /other_tenant \(cross-tenant: tenant globex\) packed/);
    assert.match(output.reason, /hr_only \(acl hr\) cited/);
  });

  test("a denied chunk that was retrieved but neither packed nor cited is not a leak (retrieval's metric covers it)", () => {
    const output = permissionLeakEvaluator.evaluate({
      caseResult: onlineCaseResult({ retrieved, tenantId: "acme", principalGroups: ["staff"], contextChunkIds: ["public_1", "staff_doc"], citations: ["staff_doc"] }),
      evalCase: null,
    });
    assert.deepEqual(output.values.cited_permission_violation_rate, { applicable: true, value: 0 });
    assert.deepEqual(output.values.permission_leak_rate, { applicable: true, value: 0 });
  });

  test("without ACLs, tenants or a principal nothing can be judged: not applicable", () => {
    const output = permissionLeakEvaluator.evaluate({
      caseResult: onlineCaseResult({ retrieved: [{ chunk_id: "a", text: "x" }], contextChunkIds: ["a"], citations: ["a"] }),
      evalCase: null,
    });
    assert.equal(output.values.cited_permission_violation_rate!.applicable, false);
    assert.equal(output.values.permission_leak_rate!.applicable, false);
  });

  describe("chunks carry ACLs but the trace records no principal groups: not available, never passed or 0 % leaks", () => {
    // Same tenant everywhere: public_1 (acl []) is readable, staff_doc and hr_only (acl) cannot be checked.
    const sameTenant = retrieved.filter((chunk) => chunk.tenant_id === "acme");
    const caseResult = onlineCaseResult({ retrieved: sameTenant, tenantId: "acme", contextChunkIds: ["public_1", "staff_doc"], citations: ["staff_doc"] });

    test("permission leak: both metrics not applicable, the reason says not available and how to record the groups", () => {
      const output = permissionLeakEvaluator.evaluate({ caseResult, evalCase: null });
      assert.equal(output.values.permission_leak_rate!.applicable, false);
      assert.equal(output.values.cited_permission_violation_rate!.applicable, false);
      assert.match(output.reason, /^not available: 1 packed or cited chunk\(s\) carry ACLs \(staff_doc\)/);
      assert.match(output.reason, /principalGroups/);
    });

    test("retrieval permission: not applicable with the same reason, not a 0 violation rate", () => {
      const output = retrievalPermissionEvaluator.evaluate({ caseResult, evalCase: null });
      assert.equal(output.values.permission_violation_rate!.applicable, false);
      assert.match(output.reason, /^not available: 2 retrieved chunk\(s\) carry ACLs \(hr_only, staff_doc\)/);
    });

    test("stored: outcome not_applicable (not passed), no value, and the case is not passed", () => {
      const evaluation = evaluateCaseResult(createDefaultRegistry(), caseResult, null, "2026-07-08T10:00:00.000Z");
      for (const id of ["online.permission_leak", "retrieval.permission"]) {
        const result = evaluation.evaluationResults.find((item) => item.evaluator_id === id)!;
        assert.equal(result.outcome, "not_applicable", id);
        assert.ok(Object.values(result.metric_values).every((value) => value === null), id);
        assert.match(result.reason, /not available/, id);
      }
      assert.notEqual(evaluation.caseResult.quality_status, "passed");
    });

    test("with the groups recorded the same trace is checked: 0 leaks for a staff member", () => {
      const checked = onlineCaseResult({ retrieved: sameTenant, tenantId: "acme", principalGroups: ["staff"], contextChunkIds: ["public_1", "staff_doc"], citations: ["staff_doc"] });
      assert.deepEqual(permissionLeakEvaluator.evaluate({ caseResult: checked, evalCase: null }).values.permission_leak_rate, { applicable: true, value: 0 });
    });

    test("a chunk of another tenant is still a leak without the groups", () => {
      const leaking = onlineCaseResult({ retrieved, tenantId: "acme", contextChunkIds: ["staff_doc", "other_tenant"], citations: [] });
      assert.deepEqual(permissionLeakEvaluator.evaluate({ caseResult: leaking, evalCase: null }).values.permission_leak_rate, { applicable: true, value: 1 });
    });
  });
});
