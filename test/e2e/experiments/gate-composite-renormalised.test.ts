/**
 * A gate rule on the weighted score never passes on a score that stands on part of its weights. Built CLI as a
 * subprocess: `eval` of one case whose answer cites its gold chunk, with no judge configured, so of the seed's terms
 * only citation accuracy (0.10) has a value and the score, renormalised over it, is 1. The rule composite_score
 * ">= 0.5" passed on it; it is not measured, the run BLOCKED, with the missing terms and what to configure. `eval`
 * shows the score as such beside the hard thresholds; `gate` on the stored run says the same, and with
 * --allow-missing passes saying the rule was allowed, not met.
 */
import assert from "node:assert/strict";
import { readFile, rm } from "node:fs/promises";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { gateWorkspace, type GateWorkspace } from "./support/gate-workspace.js";
import { runRagscope, tasksFolder } from "./support/run-ragscope.js";

const ENVIRONMENT = { RAGSCOPE_CLICKHOUSE_URL: "" };
const RULE = /^ {2}N\/A {3}quality\.composite_score +— +>= 0\.5 {2}\(the weighted score 1 stands on weight 0\.1 of 1 \(renormalised over Cit \(citation_accuracy\)\)/m;
const MISSING = /missing R \(answer_relevance\): no judge scored it; F \(faithfulness\): only the heuristic judge scored it, and a heuristic never decides a gate; C \(answer_correctness\): no judge scored it; Comp \(completeness\): .*no LLM judge scored completeness_judged — configure an LLM judge \(LOCAL-JUDGE\.md\)/;

describe("a composite_score rule on a renormalised score is not measured", () => {
  let workspace: GateWorkspace;

  before(async () => {
    workspace = await gateWorkspace("gate-composite", ["quality:", '  composite_score: ">= 0.5"'], {
      dataset_id: "composite_renormalised",
      dataset_version: "1",
      cases: [
        {
          case_id: "case_cited",
          case_version: "1",
          input: "How many sick days do I get?",
          reference_answer: "10 sick days a year.",
          gold_evidence: [{ document_id: "hr_policy", chunk_id: "sick_01", text: "Employees get 10 sick days a year." }],
          metadata: { retrieve: [{ chunk: "sick_01", document: "hr_policy", text: "Employees get 10 sick days a year." }], context: { chunks: ["sick_01"] }, answer: "Employees get 10 sick days a year.", cite: ["sick_01"] },
        },
      ],
    });
  });
  after(async () => {
    await rm(workspace.folder, { recursive: true, force: true });
  });

  test("eval and gate: BLOCKED with the missing terms; --allow-missing passes saying the rule was allowed, not met", async () => {
    const { dataset, gates, dataDir, folder } = workspace;
    const output = path.join(folder, "results.json");
    const evaluated = await runRagscope(["eval", "--dataset", dataset, "--task", path.join(tasksFolder, "staged-rag-task.ts"), "--run-id", "renormalised", "--gates", gates, "--data-dir", dataDir, "--output", output], ENVIRONMENT);
    assert.equal(evaluated.status, 1, evaluated.stdout + evaluated.stderr);
    assert.match(evaluated.stdout, /^Release gate: BLOCKED — 0 passed, 0 failed, 1 not measured, 0 errored/m);
    assert.match(evaluated.stdout, RULE);
    assert.match(evaluated.stdout, MISSING);
    // The score is shown as it is, and as no measurement a decision reads.
    assert.match(evaluated.stdout, /^ {2}overall score +1\.0000 .*\(seed default\); NOT MEASURED for a decision: the weighted score 1 stands on weight 0\.1 of 1/m);
    const overall = (JSON.parse(await readFile(output, "utf8")) as { end_to_end: { overall_score: { value: number; renormalised: boolean; for_decision: { value: number | null; reason: string | null } } } }).end_to_end.overall_score;
    assert.equal(overall.value, 1);
    assert.equal(overall.renormalised, true);
    assert.equal(overall.for_decision.value, null);
    assert.match(overall.for_decision.reason ?? "", /stands on weight 0\.1 of 1/);

    const gated = await runRagscope(["gate", "--run", "renormalised", "--gates", gates, "--data-dir", dataDir], ENVIRONMENT);
    assert.equal(gated.status, 1, gated.stdout + gated.stderr);
    assert.match(gated.stdout.split("\n")[0]!, /BLOCKED — 0 passed, 0 failed, 1 not measured, 0 errored \(no rule failed; the 1 not measured block it/);
    assert.match(gated.stdout, RULE);
    assert.match(gated.stdout, MISSING);

    const allowed = await runRagscope(["gate", "--run", "renormalised", "--gates", gates, "--allow-missing", "--data-dir", dataDir], ENVIRONMENT);
    assert.equal(allowed.status, 0, allowed.stdout + allowed.stderr);
    assert.match(allowed.stdout.split("\n")[0]!, /PASSED — 0 passed, 0 failed, 1 not measured, 0 errored \(the 1 not measured were allowed by --allow-missing: not shown to meet their thresholds\)$/);
    assert.match(allowed.stdout, RULE);
  });
});
