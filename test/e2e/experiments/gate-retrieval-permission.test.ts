/**
 * The project's default gate file blocks a release whose retriever returns documents the user may not read, even
 * when a later stage drops them (seed 004 §八.1 用户是否能检索到无权访问的文档; §三.5 权限过滤准确率). The README's toy
 * pipeline as an eval task: its search ignores ACLs and returns the staff-only fraud playbook for a customer, the
 * rerank drops it. Both cases fail with PERMISSION_LEAK; before, the default gate checked only
 * permission_leak_rate (a denied chunk that reached the context or the answer: 0 here), printed
 * `PASS boundary.permission_leak_rate 0 = 0`, and with --allow-missing passed the run. Built CLI as a subprocess,
 * `eval` then `gate` on the stored run, with no --gates: the default file.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { runRagscope, tasksFolder } from "./support/run-ragscope.js";

const ENVIRONMENT = { RAGSCOPE_CLICKHOUSE_URL: "" };

describe("the default gate file holds retrieval's permission violations at zero", () => {
  let folder: string;
  let dataDir: string;
  let dataset: string;
  const task = path.join(tasksFolder, "acl-ignoring-search-task.ts");

  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-gate-retrieval-permission-"));
    dataDir = path.join(folder, "store");
    dataset = path.join(folder, "cases.yaml");
    // The README's cases.yaml.
    await writeFile(
      dataset,
      [
        "- id: refund_speed",
        "  question: How fast is a refund?",
        "  reference_answer: Refunds reach the original payment method within 7 days.",
        "  relevant_document_ids: [refund-policy]",
        "  relevant_chunk_ids: [refund-1]",
        "  question_type: high_frequency",
        "  difficulty: easy",
        "- id: points_expiry",
        "  question: When do member points expire?",
        "  reference_answer: Member points expire 12 months after they are earned.",
        "  relevant_document_ids: [member-points]",
        "  relevant_chunk_ids: [points-1]",
        "  question_type: long_tail",
        "  difficulty: medium",
        "",
      ].join("\n"),
    );
  });
  after(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  test("eval fails both cases on PERMISSION_LEAK, and gate, even with --allow-missing, fails the run on permission_violation_rate", async () => {
    const evaluated = await runRagscope(["eval", "--dataset", dataset, "--task", task, "--run-id", "acl-ignored", "--data-dir", dataDir], ENVIRONMENT);
    assert.equal(evaluated.status, 1, evaluated.stdout + evaluated.stderr);
    assert.match(evaluated.stdout, /PERMISSION_LEAK/, evaluated.stdout);

    const gated = await runRagscope(["gate", "--run", "acl-ignored", "--allow-missing", "--data-dir", dataDir], ENVIRONMENT);
    assert.equal(gated.status, 1, gated.stdout + gated.stderr);
    assert.match(gated.stdout.split("\n")[0]!, /: BLOCKED — 7 passed, 1 failed, 8 not measured, 0 errored$/, gated.stdout);
    // Each request retrieved 3 chunks the customer's access could be judged on, 1 of them denied: a mean of 1/3.
    assert.match(gated.stdout, /FAIL\s+retrieval\.permission_violation_rate\s+0\.333\d*\s+= 0/, gated.stdout);
    // The narrow rate stays what it is: nothing denied reached the context or the answer.
    assert.match(gated.stdout, /PASS\s+boundary\.permission_leak_rate\s+0\s+= 0/, gated.stdout);
  });
});
