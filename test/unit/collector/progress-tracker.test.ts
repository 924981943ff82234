import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { ProgressTracker } from "../../../collector/03-consume/progress-tracker.js";

describe("committable offsets", () => {
  test("commit stops at the oldest message whose traces are not durable", () => {
    const tracker = new ProgressTracker();
    tracker.received({ partition: 0, offset: "10" }, ["a"]);
    tracker.received({ partition: 0, offset: "11" }, ["b", "a"]);
    tracker.received({ partition: 0, offset: "12" }, ["c"]);
    assert.equal(tracker.committable().get(0), "10");
    tracker.durable("b");
    tracker.durable("c");
    assert.equal(tracker.committable().get(0), "10", "a is still open: 10 and 11 replay");
    tracker.durable("a");
    assert.equal(tracker.committable().get(0), "13");
  });

  test("a message with no traces (dead-lettered) is done at once; partitions are independent", () => {
    const tracker = new ProgressTracker();
    tracker.received({ partition: 1, offset: "0" }, []);
    tracker.received({ partition: 2, offset: "5" }, ["x"]);
    assert.equal(tracker.committable().get(1), "1");
    assert.equal(tracker.committable().get(2), "5");
    tracker.forgetPartition(2);
    assert.equal(tracker.committable().has(2), false);
    assert.equal(tracker.pendingMessages, 0);
  });
});
