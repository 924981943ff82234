/**
 * A case id and version stored with two contents — what two pushes that ran
 * at the same time on one ClickHouse server leave (test/integration/cli/dataset-push-race.test.ts
 * makes it with two `ragscope dataset push`) — is nobody's choice: the
 * evaluator's lookup, a run's cases (report, gate) and a trace's detail (web
 * UI) show the case as unknown instead of the first row they read.
 *
 * Here the second content is the row the racing push inserts, written as its
 * `put` writes it, after this store's own `put` stored the first.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { caseContentDigest } from "../../../contracts/eval-case-digest.js";
import type { EvalCase } from "../../../contracts/eval-case.js";
import { createDefaultRegistry } from "../../../evaluators/default-registry.js";
import { evaluateCaseResult } from "../../../evaluators/evaluate-case-result.js";
import { ClickHouseCaseStore } from "../../../store/clickhouse/clickhouse-case-store.js";
import { StoredCaseConflictError } from "../../../store/ports/case-store.js";
import { seedExample } from "../../support/case-results.js";
import { temporaryStore, type TemporaryStore } from "../../support/temporary-store.js";

describe("readers of a case stored with two contents", () => {
  let subject: TemporaryStore;
  const { caseResult, evalCase } = seedExample();
  const other: EvalCase = { ...evalCase, dataset_id: "team_b", input: `${evalCase.input}（另一个版本）` };

  before(async () => {
    subject = await temporaryStore();
    await subject.store.cases.put([evalCase]);
    const evaluated = evaluateCaseResult(createDefaultRegistry(), { ...caseResult, case_version: evalCase.case_version, run_id: "run_raced", case_result_id: "cr_raced" }, evalCase, "2026-07-08T09:32:01.000Z");
    await subject.store.results.write([evaluated]);
    await subject.connection.client.insert({
      table: `${subject.connection.database}.eval_cases`,
      values: [{ case_id: other.case_id, case_version: other.case_version, dataset_id: other.dataset_id, dataset_version: other.dataset_version, payload: JSON.stringify(other), content_digest: caseContentDigest(other), version: Date.now() }],
      format: "JSONEachRow",
    });
  });
  after(() => subject?.cleanup());

  test("the evaluator's lookup answers unknown and counts it", async () => {
    const cases = new ClickHouseCaseStore(subject.connection);
    assert.equal(await cases.get(evalCase.case_id, evalCase.case_version), null);
    assert.deepEqual({ unknown: cases.counters.unknownCases, conflicting: cases.counters.conflictingCases }, { unknown: 1, conflicting: 1 });
  });

  test("a run's cases and a trace's detail show it without an Eval Case", async () => {
    const [loaded] = await subject.store.reader.loadRunCases("run_raced");
    assert.equal(loaded?.caseResult.case_id, evalCase.case_id);
    assert.equal(loaded?.evalCase, null);
    const detail = await subject.store.traces.readTrace("cr_raced");
    assert.ok(detail);
    assert.equal(detail.evalCase, null);
  });

  test("a push of either content is refused, naming the other's dataset and how to remove one", async () => {
    for (const [pushed, otherDataset] of [[evalCase, "team_b"], [other, evalCase.dataset_id]] as const) {
      await assert.rejects(new ClickHouseCaseStore(subject.connection).put([pushed]), (error: unknown) => {
        assert.ok(error instanceof StoredCaseConflictError);
        assert.equal(error.race, "found");
        assert.match(error.message, new RegExp(`is stored with two contents: this one and one from dataset ${otherDataset} version ${evalCase.dataset_version}, differing in input`));
        assert.match(error.message, /ALTER TABLE .*eval_cases DELETE WHERE case_id = 'rag_refund_member_points_001' AND case_version = 'v2' AND content_digest = '[0-9a-f]{64}' SETTINGS mutations_sync = 1/);
        return true;
      });
    }
  });
});
