/**
 * Permission leak into the context and the citations (evaluators/online/
 * permission-leak.ts), with the access rule of rules/retrieval-access-control.ts.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { permissionLeakEvaluator } from "../../../evaluators/online/permission-leak.js";
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
});
