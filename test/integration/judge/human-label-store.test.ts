/**
 * Human labels in the real ClickHouse engine (embedded chDB by default, a
 * server with RAGSCOPE_TEST_CLICKHOUSE_URL), through migration
 * 0003_human_labels.sql; the in-memory store must behave the same.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { ClickHouseHumanLabelStore } from "../../../store/clickhouse/clickhouse-human-label-store.js";
import { newHumanLabel } from "../../../evaluators/judge/calibration/human-label.js";
import type { HumanLabelStore } from "../../../store/ports/human-label-store.js";
import { MemoryHumanLabelStore } from "../../../store/memory/memory-human-label-store.js";
import { temporaryStore, type TemporaryStore } from "../../support/temporary-store.js";

// The requests reviewed (the store does not check them: these cases are not stored).
const TRACE_1 = "0af7651916cd43dd8448eb211c80319c";
const TRACE_2 = "4bf92f3577b34da6a3ce929d0e0e4736";

async function exerciseStore(store: HumanLabelStore): Promise<void> {
  await store.save([
    newHumanLabel({ case_result_id: "cr_1", trace_id: TRACE_1, metric: "faithfulness", labeler_id: "alice", verdict: "fail", value: 0.5, note: "the second claim is invented", labeled_at: "2026-07-08T09:00:00.000Z" }),
    newHumanLabel({ case_result_id: "cr_1", trace_id: TRACE_1, metric: "faithfulness", labeler_id: "bob", verdict: "pass", labeled_at: "2026-07-08T09:05:00.000Z" }),
    newHumanLabel({ case_result_id: "cr_2", trace_id: TRACE_2, metric: "answer_relevance", labeler_id: "alice", verdict: "pass", value: 1, labeled_at: "2026-07-08T09:10:00.000Z" }),
  ]);
  // Alice relabels cr_1: the later label replaces hers, it does not add one.
  await store.save([newHumanLabel({ case_result_id: "cr_1", trace_id: TRACE_1, metric: "faithfulness", labeler_id: "alice", verdict: "pass", value: 1, labeled_at: "2026-07-08T10:00:00.000Z" })]);

  const all = await store.list();
  assert.equal(all.length, 3);
  const faithfulness = await store.list({ metric: "faithfulness" });
  assert.deepEqual(
    faithfulness.map((label) => [label.labeler_id, label.trace_id, label.verdict, label.value, label.labeled_at]),
    [
      ["alice", TRACE_1, "pass", 1, "2026-07-08T10:00:00.000Z"],
      ["bob", TRACE_1, "pass", null, "2026-07-08T09:05:00.000Z"],
    ],
  );
  assert.deepEqual((await store.list({ caseResultIds: ["cr_2"] })).map((label) => label.metric), ["answer_relevance"]);
  assert.deepEqual((await store.list({ labelerId: "bob" })).map((label) => label.case_result_id), ["cr_1"]);
  assert.equal((await store.list({ metric: "faithfulness", labelerId: "alice" }))[0]?.note, "");
}

describe("human label stores", () => {
  let store: TemporaryStore;
  before(async () => {
    store = await temporaryStore();
  });
  after(async () => {
    await store.cleanup();
  });

  test("ClickHouse: save, relabel, filter", async () => {
    await exerciseStore(new ClickHouseHumanLabelStore(store.connection));
  });

  test("in memory: the same behaviour", async () => {
    await exerciseStore(new MemoryHumanLabelStore());
  });
});
