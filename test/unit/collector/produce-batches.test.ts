import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { BATCH_FRAMING_BYTES, produceBatches, recordBytes } from "../../../collector/02-transport/kafka/produce-batches.js";
import type { BusMessage } from "../../../collector/02-transport/trace-bus.js";

const message = (key: string | null, valueBytes: number, headers?: Record<string, string>): BusMessage => ({ key, value: new Uint8Array(valueBytes), ...(headers ? { headers } : {}) });

describe("produce calls cut to the broker's batch limit", () => {
  test("a record counts its value, key, headers and framing", () => {
    const plain = recordBytes(message(null, 100));
    assert.ok(plain > 100);
    assert.equal(recordBytes(message("é", 100)), plain + 2, "the key's UTF-8 bytes");
    assert.ok(recordBytes(message(null, 100, { "ragscope.repartitioned": "1" })) > plain + "ragscope.repartitioned".length);
  });

  test("groups keep the messages' order and each fits the limit, framing included", () => {
    const messages = Array.from({ length: 200 }, (_, index) => message(`trace-${index}`, 1_000 + ((index * 7919) % 40_000)));
    const limit = 100_000;
    const groups = produceBatches(messages, limit);
    assert.deepEqual(groups.flat(), messages);
    for (const group of groups) assert.ok(BATCH_FRAMING_BYTES + group.reduce((sum, item) => sum + recordBytes(item), 0) <= limit);
    // Greedy: a group and the first message of the next would not have fitted together.
    for (let index = 1; index < groups.length; index += 1) {
      const previous = groups[index - 1]!;
      assert.ok(BATCH_FRAMING_BYTES + [...previous, groups[index]![0]!].reduce((sum, item) => sum + recordBytes(item), 0) > limit);
    }
  });

  test("messages that fill the limit exactly share a group; one byte more starts another", () => {
    const size = recordBytes(message("k", 1_000));
    const limit = BATCH_FRAMING_BYTES + 3 * size;
    assert.equal(produceBatches([message("k", 1_000), message("k", 1_000), message("k", 1_000)], limit).length, 1);
    assert.deepEqual(produceBatches([message("k", 1_000), message("k", 1_000), message("k", 1_001)], limit).map((group) => group.length), [2, 1]);
  });

  test("a message larger than the limit goes alone, and nothing is lost around it", () => {
    const groups = produceBatches([message("a", 10), message("b", 5_000), message("c", 10)], 1_000);
    assert.deepEqual(groups.map((group) => group.map((item) => item.key)), [["a"], ["b"], ["c"]]);
    assert.deepEqual(produceBatches([], 1_000), []);
  });
});
