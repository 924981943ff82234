/**
 * Replaying an Eval Case through the assistant: the question is the case's
 * `input`; the request carries the run / case / dataset linkage (so the
 * collector can join the trace to the case) and who is asking.
 *
 * Who is asking comes from the case's `context` (002 template: "对话、用户、
 * 订单或系统上下文"), with three keys this example's dataset uses:
 * `tenant_id`, `principal_id` and `principal_groups`. A case without them
 * asks as an anonymous customer of the default tenant.
 */
import type { EvalCase } from "../../contracts/eval-case.js";
import { DEFAULT_TENANT_ID, type PolicyRequest } from "./create-policy-assistant.js";

export interface CaseReplay {
  question: string;
  request: PolicyRequest;
}

function stringField(record: Record<string, unknown>, key: string): string | undefined {
  const value = record[key];
  return typeof value === "string" && value.trim() !== "" ? value : undefined;
}

function stringListField(record: Record<string, unknown>, key: string): string[] | undefined {
  const value = record[key];
  if (typeof value === "string") return [value];
  if (Array.isArray(value) && value.every((item) => typeof item === "string")) return [...value];
  return undefined;
}

export function replayForCase(evalCase: EvalCase, runId: string): CaseReplay {
  const context = evalCase.context;
  return {
    question: evalCase.input,
    request: {
      runId,
      caseId: evalCase.case_id,
      caseVersion: evalCase.case_version,
      datasetId: evalCase.dataset_id,
      datasetVersion: evalCase.dataset_version,
      tenantId: stringField(context, "tenant_id") ?? DEFAULT_TENANT_ID,
      principalId: stringField(context, "principal_id"),
      principalGroups: stringListField(context, "principal_groups") ?? [],
    },
  };
}
