/**
 * A value beyond 2^53 − 1 is no measurement (core/largest-measurement.ts), and every reader of a run counts it not
 * applicable: `ragscope eval`'s printed summary, `ragscope gate` on the stored run, and the store's run summary (the
 * web UI's `/api/runs/<run>/summary`). Before, only the stores' writers left such a value out, so the readers
 * disagreed:
 * - a request of two LLM calls of 6e15 input tokens each (each within the bound) summed to 1.2e16, stored on the Case
 *   Result with no note; eval printed `input_tokens 6000000000000100.0000 n=2` (its mean with a case of 200) while the
 *   store's summary read 200 over 1 case, 1 not applicable. Now the request's sum is not available, with a note;
 * - a run whose results carry such values as written (an earlier release's collector, a direct write to the store):
 *   `gate` read them raw (`performance.input_tokens 6000000000000100` FAIL) where the store's summary read 200. Now
 *   it reads 200, and a cost beyond the bound is a cost not known, as a request that recorded none.
 * As users meet it: the built CLI as a subprocess, a task module answering through the SDK, then the store read back.
 */
import assert from "node:assert/strict";
import { rm } from "node:fs/promises";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { caseResult as caseResultSchema, type CaseResult } from "../../../contracts/case-result.js";
import { openClickHouseStore } from "../../../store/clickhouse/clickhouse-store.js";
import type { RunSummary } from "../../../store/ports/run-reader.js";
import { measured, plannedCaseResult, writeToFolder } from "../../support/stored-requests.js";
import { queryRows } from "../../support/temporary-store.js";
import { gateWorkspace, type GateWorkspace } from "./support/gate-workspace.js";
import { runRagscope, tasksFolder } from "./support/run-ragscope.js";

const ENVIRONMENT = { RAGSCOPE_CLICKHOUSE_URL: "" };
const GATES = ["performance:", '  input_tokens: "<= 1000"', '  average_cost: "<= 1"'];
const DATASET = {
  dataset_id: "two_calls",
  dataset_version: "1",
  cases: [
    { case_id: "beyond", case_version: "1", input: "How long is the refund window?", metadata: { input_tokens: 6e15, answer: "14 days." } },
    { case_id: "within", case_version: "1", input: "Can I return opened items?", metadata: { input_tokens: 100, answer: "Within 14 days." } },
  ],
};

/** The line of a printed table that starts with `label` (after its indentation). */
function lineOf(printed: string, label: RegExp): string {
  const line = printed.split("\n").find((candidate) => label.test(candidate.trim()));
  assert.ok(line !== undefined, `no line ${label} in:\n${printed}`);
  return line;
}

/** What the store keeps for the run: its summary (the web UI's run page) and its Case Results by case id. */
async function readStore(dataDir: string, runId: string): Promise<{ summary: RunSummary; results: Map<string, CaseResult> }> {
  const store = await openClickHouseStore({ url: null, username: "default", password: "", database: "ragscope", dataPath: dataDir });
  try {
    const summary = await store.reader.readRunSummary(runId);
    const rows = await queryRows<{ payload: string }>(store.connection, "SELECT payload FROM {{database}}.case_results FINAL WHERE run_id = {run:String}", { run: runId });
    const results = new Map(rows.map((row) => caseResultSchema.parse(JSON.parse(row.payload))).map((result) => [result.case_id, result]));
    return { summary, results };
  } finally {
    await store.close();
  }
}

function summaryOf(summary: RunSummary, metric: string) {
  return summary.metrics.filter((row) => row.metric === metric).map(({ mean, applicable, notApplicable }) => ({ mean, applicable, notApplicable }));
}

describe("a usage value beyond 2^53 − 1 is not applicable to eval, gate and the store's run summary alike", () => {
  let workspace: GateWorkspace;

  before(async () => {
    workspace = await gateWorkspace("usage-sum-beyond-bound", GATES, DATASET);
  });
  after(async () => {
    await rm(workspace.folder, { recursive: true, force: true });
  });

  test("ragscope eval: two calls of 6e15 input tokens make no request sum, with a note; eval prints what the store's summary reads", async () => {
    const task = path.join(tasksFolder, "two-calls-task.ts");
    const ran = await runRagscope(["eval", "--dataset", workspace.dataset, "--task", task, "--run-id", "summed", "--gates", workspace.gates, "--data-dir", workspace.dataDir], ENVIRONMENT);
    assert.doesNotMatch(ran.stderr, /unexpected error/, ran.stderr);
    assert.match(lineOf(ran.stdout, /^input_tokens\s/), /^\s+input_tokens\s+200\.0000\s+n=1$/, "the case within the bound alone, not 6000000000000100 over 2");
    assert.match(lineOf(ran.stdout, /^total_tokens\s/), /^\s+total_tokens\s+220\.0000\s+n=1$/);
    assert.match(lineOf(ran.stdout, /^output_tokens\s/), /^\s+output_tokens\s+20\.0000\s+n=2$/, "10 + 10 on each case, within the bound");
    assert.match(lineOf(ran.stdout, /^PASS\s+performance\.input_tokens/), /^\s+PASS\s+performance\.input_tokens\s+200\s+<= 1000$/);

    const { summary, results } = await readStore(workspace.dataDir, "summed");
    assert.deepEqual(summaryOf(summary, "input_tokens"), [{ mean: 200, applicable: 1, notApplicable: 1 }], "the store's summary reads as eval printed");
    const beyond = results.get("beyond")!.rag_observation;
    assert.deepEqual([beyond.generation.input_tokens, beyond.generation.output_tokens, beyond.generation.total_tokens], [null, 20, null]);
    const notes = beyond.malformed_attributes.filter((note) => note.attribute === "generation");
    assert.deepEqual(notes.map((note) => note.kind), ["unreadable_value"], JSON.stringify(beyond.malformed_attributes));
    assert.match(notes[0]!.error, /input_tokens: 6000000000000000 \+ 6000000000000000 over the request's LLM calls, this one the last, which makes 12000000000000000, beyond 9007199254740991 \(2\^53 − 1\)/);
  });

  test("ragscope gate on a run whose results carry values beyond 2^53 − 1 as written: not applicable, as in the store's summary", async () => {
    const runId = "written-beyond";
    const startedAtMs = Date.UTC(2026, 11, 7, 9);
    const written = [
      { caseId: "beyond", traceId: "c0000000000000000000000000000001", inputTokens: 1.2e16, cost: 1e16 },
      { caseId: "within", traceId: "c0000000000000000000000000000002", inputTokens: 200, cost: 0.5 },
    ].map(({ caseId, traceId, inputTokens, cost }) => {
      const planned = plannedCaseResult({ caseResultId: `cr_${caseId}`, traceId, runId, caseId, startedAtMs });
      const caseResult = { ...planned, rag_observation: { ...planned.rag_observation, generation: { ...planned.rag_observation.generation, model: "test-model", input_tokens: inputTokens, cost } } };
      return { caseResult, evaluationResults: [measured(`cr_${caseId}`, "performance.usage", { input_tokens: inputTokens, cost }, startedAtMs + 3_000)] };
    });
    await writeToFolder(workspace.dataDir, written);

    const gated = await runRagscope(["gate", "--run", runId, "--gates", workspace.gates, "--data-dir", workspace.dataDir], ENVIRONMENT);
    assert.doesNotMatch(gated.stderr, /unexpected error/, gated.stderr);
    assert.match(lineOf(gated.stdout, /^\S+\s+performance\.input_tokens/), /^\s+PASS\s+performance\.input_tokens\s+200\s+<= 1000$/, "200, not the mean with 1.2e16");
    // The cost of 1e16 is no cost: the mean stands on the other, and the rule is not measured over part of the run.
    assert.match(lineOf(gated.stdout, /^\S+\s+performance\.average_cost/), /^\s+N\/A\s+performance\.average_cost\s+—\s+<= 1\s+\(average_cost = 0\.5 would meet <= 1, but it is the mean of 1 of 2 requests/, "0.5, not the mean with 1e16");

    const { summary } = await readStore(workspace.dataDir, runId);
    assert.deepEqual(summaryOf(summary, "input_tokens"), [{ mean: 200, applicable: 1, notApplicable: 1 }]);
    assert.deepEqual(summaryOf(summary, "cost"), [{ mean: 0.5, applicable: 1, notApplicable: 1 }]);
  });
});
