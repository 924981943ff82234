import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ClickHouseSink } from "../../../store/clickhouse/clickhouse-sink.js";
import { toRows } from "../../../store/clickhouse/result-rows.js";
import { createDefaultRegistry } from "../../../evaluators/default-registry.js";
import { evaluateCaseResult } from "../../../evaluators/evaluate-case-result.js";
import { seedExample } from "../../support/case-results.js";
import { queryRows, temporaryStore, type TemporaryStore } from "../../support/temporary-store.js";

const awkward = 'tab\there, line\nfeed, return\r, back\\slash, \\N, nul\u0000, "quoted", émoji 🙂, \u2028';

describe("sink rows through the ClickHouse engine, TabSeparated", () => {
  let store: TemporaryStore;
  before(async () => {
    store = await temporaryStore();
  });
  after(async () => {
    await store.cleanup();
  });

  test("every column reads back as the row that was written: awkward text, NULLs, numbers, times", async () => {
    const { caseResult, evalCase } = seedExample();
    const evaluation = evaluateCaseResult(
      createDefaultRegistry(),
      { ...caseResult, case_result_id: "cr_round_trip", output: awkward, completed_at: null, rag_observation: { ...caseResult.rag_observation, route: "a\tb", latency_ms: Number.NaN } },
      evalCase,
      "2026-07-08T09:32:01.123Z",
    );
    const first = evaluation.evaluationResults[0]!;
    first.reason = awkward;
    first.metric_values = { ...first.metric_values, tiny: 1e-9, negative: -0.25, missing: null };
    const sink = new ClickHouseSink(store.connection, { now: () => 5_000, datasetOf: () => "dataset\\one" });
    assert.deepEqual(await sink.write([evaluation]), { ok: true, value: undefined });
    const expected = toRows(evaluation, "dataset\\one", 5_000);

    const times = (row: Record<string, unknown>, columns: string[]) => {
      // The engine answers DateTime64 as "YYYY-MM-DD hh:mm:ss.fff" (the rows hold ISO strings), and a server quotes UInt64.
      const copy: Record<string, unknown> = { ...row, version: Number(row.version) };
      for (const column of columns) if (typeof copy[column] === "string") copy[column] = new Date(`${String(copy[column]).replace(" ", "T")}Z`).toISOString();
      return copy;
    };
    const [storedCase] = await queryRows<Record<string, unknown>>(store.connection, "SELECT * EXCEPT (inserted_at) FROM {{database}}.case_results WHERE case_result_id = 'cr_round_trip'");
    assert.deepEqual(times(storedCase!, ["started_at", "completed_at"]), { ...expected.caseResult, latency_ms: null });
    assert.equal(JSON.parse(storedCase!.payload as string).output, awkward);

    const storedResults = await queryRows<Record<string, unknown>>(store.connection, "SELECT * EXCEPT (inserted_at) FROM {{database}}.evaluation_results WHERE case_result_id = 'cr_round_trip' ORDER BY evaluation_result_id");
    const expectedResults = [...expected.evaluationResults].sort((left, right) => String(left.evaluation_result_id).localeCompare(String(right.evaluation_result_id)));
    assert.deepEqual(
      storedResults.map((row) => times(row, ["started_at", "evaluated_at"])),
      expectedResults,
    );

    const storedMetrics = await queryRows<Record<string, unknown>>(
      store.connection,
      "SELECT * EXCEPT (inserted_at) FROM {{database}}.metric_values WHERE case_result_id = 'cr_round_trip' ORDER BY metric, evaluator_id",
    );
    const expectedMetrics = [...expected.metricValues].sort((left, right) => String(left.metric).localeCompare(String(right.metric)) || String(left.evaluator_id).localeCompare(String(right.evaluator_id)));
    assert.deepEqual(
      storedMetrics.map((row) => times(row, ["ts", "evaluated_at"])),
      expectedMetrics,
    );
  });
});
