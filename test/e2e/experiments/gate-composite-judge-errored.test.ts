/**
 * A composite_score rule never passes on a term the judge could not score on every case. Built CLI as a subprocess:
 * `eval` of two cases with a local scripted judge that scores faithfulness 1 on one and declines the other; the gate
 * file weighs faithfulness alone (score_weights), so the score is faithfulness's mean over the one case it measured,
 * 1, and composite_score ">= 0.5" passed on it — while the rule on faithfulness itself reads ERROR. It is ERROR,
 * naming the term, the counts by error type and the fix, in `eval`'s gate and overall-score line, in the results JSON's
 * for_decision (null with the reason; the stored score kept), and in `gate` on the stored run, --allow-missing or not.
 */
import assert from "node:assert/strict";
import { readFile, rm } from "node:fs/promises";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { parse as parseYaml } from "yaml";
import { reply, startFakeChatCompletionsServer, type FakeChatCompletionsServer } from "../../support/fake-chat-completions-server.js";
import { gateWorkspace, type GateWorkspace } from "./support/gate-workspace.js";
import { projectRoot, runRagscope } from "./support/run-ragscope.js";

const GATE_LINES = [
  "quality:",
  '  composite_score: ">= 0.5"',
  "score_weights:",
  "  answer_relevance: 0",
  "  faithfulness: 1",
  "  answer_correctness: 0",
  "  completeness: 0",
  "  citation_accuracy: 0",
];
const WHY = "averages terms that could not be measured on every case: F \\(faithfulness\\) errored on 1 of 2 case\\(s\\) \\(1 measured\\) — refusal: 1; the mean of the other cases cannot stand for the run — a grader error is never a pass, and --allow-missing does not cover it \\(check the judge: RAGSCOPE_JUDGE_BASE_URL, its key and model\\)";
const RULE = new RegExp(`^ {2}ERROR {2}quality\\.composite_score +— {2}>= 0\\.5 {2}\\(the weighted score 1 ${WHY}\\)$`, "m");

describe("a composite_score rule over a term whose judge errored on one case", () => {
  let workspace: GateWorkspace;
  let judge: FakeChatCompletionsServer;

  before(async () => {
    const source = parseYaml(await readFile(path.join(projectRoot, "examples/datasets/policy-regression.yaml"), "utf8"), { maxAliasCount: -1 }) as { dataset_id: string; dataset_version: string; cases: { case_id: string }[] };
    workspace = await gateWorkspace("gate-composite-errored", GATE_LINES, {
      dataset_id: source.dataset_id,
      dataset_version: source.dataset_version,
      cases: source.cases.filter((item) => ["rag_return_window_en_001", "rag_shipping_free_threshold_001"].includes(item.case_id)),
    });
    judge = await startFakeChatCompletionsServer();
    // Every claim supported (faithfulness 1) on the return-window case; the shipping question declined.
    judge.respondWith((request) =>
      request.user.includes("包邮") || request.system.includes("包邮") ? reply.json({ cannot_judge: true, reason: "cannot tell" }) : reply.json({ claims: [{ claim: "the answer's statement", supported: true, documents: ["D1"] }], reason: "stated by the context" }),
    );
  });
  after(async () => {
    await judge.close();
    await rm(workspace.folder, { recursive: true, force: true });
  });

  test("eval and gate: ERROR with the term, its counts and the fix; for_decision null with the reason; never PASSED", async () => {
    const { dataset, gates, dataDir, folder } = workspace;
    const output = path.join(folder, "results.json");
    const environment = { RAGSCOPE_CLICKHOUSE_URL: "", RAGSCOPE_JUDGE_BASE_URL: judge.baseUrl, RAGSCOPE_JUDGE_MODEL: "scripted-judge", RAGSCOPE_JUDGE_API_KEY: "sk-test", RAGSCOPE_JUDGE_METRICS: "faithfulness", RAGSCOPE_JUDGE_TIMEOUT_MS: "5000" };
    const evaluated = await runRagscope(["eval", "--dataset", dataset, "--task", "examples/policy-assistant/eval-task.ts", "--gates", gates, "--data-dir", dataDir, "--run-id", "composite-errored", "--allow-missing", "--output", output], environment);
    const evalText = `${evaluated.stdout}\n${evaluated.stderr}`;
    assert.equal(evaluated.status, 2, evalText);
    assert.match(evaluated.stdout, RULE, evalText);
    assert.match(evaluated.stdout, /^Release gate: UNDECIDED — 0 passed, 0 failed, 0 not measured, 1 errored/m, evalText);
    // The score is shown as it is, and as an error for a decision.
    assert.match(evaluated.stdout, new RegExp(`^ {2}overall score +1\\.0000 .*\\(gate file score_weights\\); ERROR for a decision: the weighted score 1 ${WHY}$`, "m"), evalText);
    assert.doesNotMatch(evalText, /PASSED/, evalText);
    const document = JSON.parse(await readFile(output, "utf8")) as {
      end_to_end: { overall_score: { value: number; for_decision: { value: number | null; reason: string | null; errors: Record<string, number> | null } } };
      gate: { rules: { metric: string; status: string; errors?: Record<string, number> }[] };
    };
    const overall = document.end_to_end.overall_score;
    assert.equal(overall.value, 1);
    assert.equal(overall.for_decision.value, null);
    assert.match(overall.for_decision.reason ?? "", new RegExp(`^the weighted score 1 ${WHY}$`));
    assert.deepEqual(overall.for_decision.errors, { refusal: 1 });
    const rule = document.gate.rules.find((item) => item.metric === "composite_score");
    assert.equal(rule?.status, "error");
    assert.deepEqual(rule?.errors, { refusal: 1 });

    for (const extra of [[], ["--allow-missing"]]) {
      const gated = await runRagscope(["gate", "--run", "composite-errored", "--gates", gates, "--data-dir", dataDir, ...extra], environment);
      const gateText = `${gated.stdout}\n${gated.stderr}`;
      assert.equal(gated.status, 2, gateText);
      assert.match(gated.stdout, RULE, gateText);
      assert.match(gated.stdout, /UNDECIDED — 0 passed, 0 failed, 0 not measured, 1 errored/, gateText);
      assert.doesNotMatch(gateText, /PASSED/, gateText);
    }
  });
});
