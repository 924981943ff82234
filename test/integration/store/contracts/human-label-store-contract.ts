/** The HumanLabelStore contract: one label per label_id, the latest labeled_at winning; filters. */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { newHumanLabel } from "../../../../evaluators/judge/calibration/human-label.js";
import type { StoreFactory, StoreUnderTest } from "./store-under-test.js";

// The requests reviewed (an unscoped store does not check them: these cases are not stored).
const TRACE_1 = "0af7651916cd43dd8448eb211c80319c";
const TRACE_2 = "4bf92f3577b34da6a3ce929d0e0e4736";

export function humanLabelStoreContract(name: string, factory: StoreFactory): void {
  describe(`HumanLabelStore: ${name}`, () => {
    let subject: StoreUnderTest;
    before(async () => {
      subject = await factory({ now: () => Date.parse("2026-07-08T10:00:00.000Z") });
    });
    after(() => subject.cleanup());

    test("a relabel replaces the earlier label; filters select by metric, labeler and case result", async () => {
      const labels = subject.store.humanLabels;
      await labels.save([
        newHumanLabel({ case_result_id: "cr_1", trace_id: TRACE_1, metric: "faithfulness", labeler_id: "alice", verdict: "fail", value: 0.5, note: "invented claim", labeled_at: "2026-07-08T09:00:00.000Z" }),
        newHumanLabel({ case_result_id: "cr_2", trace_id: TRACE_2, metric: "faithfulness", labeler_id: "bob", verdict: "pass", value: null, note: "", labeled_at: "2026-07-08T09:01:00.000Z" }),
        newHumanLabel({ case_result_id: "cr_1", trace_id: TRACE_1, metric: "answer_relevance", labeler_id: "alice", verdict: "pass", value: 1, note: "", labeled_at: "2026-07-08T09:02:00.000Z" }),
      ]);
      await labels.save([newHumanLabel({ case_result_id: "cr_1", trace_id: TRACE_1, metric: "faithfulness", labeler_id: "alice", verdict: "pass", value: 0.9, note: "relabelled", labeled_at: "2026-07-08T09:30:00.000Z" })]);
      const all = await labels.list();
      assert.equal(all.length, 3);
      const relabelled = all.find((label) => label.case_result_id === "cr_1" && label.metric === "faithfulness")!;
      assert.deepEqual([relabelled.trace_id, relabelled.verdict, relabelled.value, relabelled.note, relabelled.labeled_at], [TRACE_1, "pass", 0.9, "relabelled", "2026-07-08T09:30:00.000Z"]);
      assert.deepEqual((await labels.list({ metric: "faithfulness" })).map((label) => label.case_result_id), ["cr_1", "cr_2"]);
      assert.deepEqual((await labels.list({ labelerId: "bob" })).map((label) => label.case_result_id), ["cr_2"]);
      assert.deepEqual((await labels.list({ caseResultIds: ["cr_1"] })).map((label) => label.metric), ["answer_relevance", "faithfulness"]);
    });
  });
}
