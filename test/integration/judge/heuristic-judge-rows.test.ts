/**
 * SQL over metric_values tells the heuristic judge's scores from LLM judges'
 * by the stored evaluator_version (evaluators/aggregate/dataset-shares.ts
 * HEURISTIC_JUDGE_ROW_SQL): every judge with heuristic confidence — the
 * heuristic judge, or a vote across heuristic judges only — writes a version
 * ending with `+heuristic`, and an LLM judge never does. The SQL predicate is
 * run on the engine against the versions the judges wrote.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { HEURISTIC_JUDGE_ROW_SQL } from "../../../evaluators/aggregate/dataset-shares.js";
import { isHeuristicJudgement } from "../../../evaluators/case-verdict.js";
import type { Judge } from "../../../evaluators/judge/judge.js";
import { noUsage } from "../../../evaluators/judge/judge.js";
import { evaluationResultFromOutcome } from "../../../evaluators/judge/judge-evaluations.js";
import { buildCaseResult } from "../../support/case-results.js";
import { queryRows, temporaryStore } from "../../support/temporary-store.js";

function judge(id: string, confidenceSemantics: "heuristic" | "judge_self_report"): Judge {
  return { id, model: "m", promptVersion: "faithfulness@3", metrics: ["faithfulness"], confidenceSemantics, judge: () => Promise.reject(new Error("not called")) } as unknown as Judge;
}

describe("heuristic judge rows in SQL", () => {
  test("the stored versions of heuristic and LLM judges are told apart as isHeuristicJudgement tells the results apart", async () => {
    const caseResult = buildCaseResult({ caseId: "c" });
    const judges = [judge("heuristic", "heuristic"), judge("vote-majority(heuristic,heuristic)", "heuristic"), judge("openai:gpt-4o-mini", "judge_self_report"), judge("vote-majority(heuristic,openai:m)", "judge_self_report")];
    const results = judges.map((item) =>
      evaluationResultFromOutcome(item, caseResult, { kind: "pass", metric: "faithfulness", value: 1, reason: "ok", details: {}, usage: noUsage(), judgeId: item.id, promptVersion: item.promptVersion }, "2026-06-01T00:00:00.000Z"),
    );
    assert.deepEqual(results.map(isHeuristicJudgement), [true, true, false, false]);
    const store = await temporaryStore({ migrate: false });
    try {
      const rows = await queryRows<{ heuristic: number }>(
        store.connection,
        `SELECT ${HEURISTIC_JUDGE_ROW_SQL} AS heuristic FROM (SELECT arrayJoin({versions:Array(String)}) AS evaluator_version, 'judge.faithfulness' AS evaluator_id, rowNumberInAllBlocks() AS position) ORDER BY position`,
        { versions: results.map((result) => result.evaluator_version) },
      );
      assert.deepEqual(rows.map((row) => Number(row.heuristic)), [1, 1, 0, 0]);
    } finally {
      await store.cleanup();
    }
  });
});
