/**
 * The judge worker retries a failed judge-result write with the same batch (collector/09-judge/judge-worker.ts). The
 * retry must send what the failed write sent: the same deduplication tokens and the same rows, row versions and the
 * verdict's evaluation time included (store/row-version-clock.ts), whatever the clock did meanwhile; else the inserts
 * that reached the engine before the failure and the retry's would be two writes, the retry's newer than a write
 * that came after the first attempt. The engine is real (chDB); only the last insert (case_results) fails, once.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ClickHouseJudgeResultSink } from "../../../store/clickhouse/clickhouse-judge-result-sink.js";
import { ClickHouseSink } from "../../../store/clickhouse/clickhouse-sink.js";
import type { ClickHouseConnection } from "../../../store/clickhouse/clickhouse-connection.js";
import { createDefaultRegistry } from "../../../evaluators/default-registry.js";
import { evaluateCaseResult } from "../../../evaluators/evaluate-case-result.js";
import { HeuristicJudge } from "../../../evaluators/judge/heuristic-judge.js";
import { runJudgeEvaluations } from "../../../evaluators/judge/judge-evaluations.js";
import { seedExample } from "../../support/case-results.js";
import { temporaryStore, type TemporaryStore } from "../../support/temporary-store.js";

interface SentInsert {
  table: string;
  settings: unknown;
  values: unknown;
}

/** The connection with its client's inserts recorded, the first one into `failingTable` failing instead. */
function failingOnce(connection: ClickHouseConnection, failingTable: string, sent: SentInsert[]): ClickHouseConnection {
  let failed = false;
  const client = new Proxy(connection.client, {
    get(target, property, receiver) {
      if (property !== "insert") {
        const value: unknown = Reflect.get(target, property, receiver);
        return typeof value === "function" ? value.bind(target) : value;
      }
      return async (parameters: Parameters<ClickHouseConnection["client"]["insert"]>[0]) => {
        if (!failed && parameters.table.endsWith(`.${failingTable}`)) {
          failed = true;
          throw new Error("connection reset by the test");
        }
        sent.push({ table: parameters.table, settings: parameters.clickhouse_settings, values: parameters.values });
        return target.insert(parameters);
      };
    },
  });
  return { ...connection, client };
}

describe("the ClickHouse judge result sink, retried after a failure", () => {
  let store: TemporaryStore;
  before(async () => {
    store = await temporaryStore();
  });
  after(async () => {
    await store.cleanup();
  });

  test("the retry sends the failed write's tokens, rows and versions, whatever the clock did meanwhile", async () => {
    const { caseResult, evalCase } = seedExample();
    const rules = evaluateCaseResult(createDefaultRegistry(), { ...caseResult, case_result_id: "cr_judge_retried", run_id: "run_judge_retried" }, evalCase, "2026-07-08T09:32:01.000Z");
    assert.ok((await new ClickHouseSink(store.connection, { now: () => 500 }).write([rules])).ok);
    const judged = await runJudgeEvaluations(new HeuristicJudge(), rules.caseResult, evalCase, "2026-07-08T09:33:00.000Z");
    assert.ok(judged.length > 0, "the heuristic judge applies to the seed example");
    const batch = [{ caseResult: rules.caseResult, evaluationResults: judged, evalCase }];

    const sent: SentInsert[] = [];
    let clock = 1_000;
    const sink = new ClickHouseJudgeResultSink(failingOnce(store.connection, "case_results", sent), { now: () => clock });
    const failed = await sink.write(batch);
    assert.ok(!failed.ok && failed.error.retriable, "the failed write is retriable");
    const sentBeforeFailure = sent.splice(0);
    assert.deepEqual(
      sentBeforeFailure.map((insert) => insert.table.split(".").pop()),
      ["metric_values", "evaluation_results", "evaluation_results"],
      "the judge's metrics and results, and the verdict's root cause, were sent before the failure",
    );
    clock = 5_000;
    assert.deepEqual(await sink.write(batch), { ok: true, value: undefined });
    assert.deepEqual(sent.slice(0, sentBeforeFailure.length), sentBeforeFailure, "the retry's tokens and rows (with their versions) are the failed write's");
    assert.equal(sent.length, sentBeforeFailure.length + 1, "and then the Case Result");
  });
});
