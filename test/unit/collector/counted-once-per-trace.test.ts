import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { CountedOncePerTrace } from "../../../collector/07-evaluate/counted-once-per-trace.js";

describe("counting once per trace", () => {
  test("a re-opened trace adds only what it holds beyond what was counted for it; a counter never goes back", () => {
    const counted = new CountedOncePerTrace<"malformed_json" | "truncated">(10);
    assert.deepEqual(counted.increase("a", false, { malformed_json: 2 }), { malformed_json: 2 });
    assert.deepEqual(counted.increase("a", true, { malformed_json: 3, truncated: 1 }), { malformed_json: 1, truncated: 1 });
    assert.deepEqual(counted.increase("a", true, { malformed_json: 1 }), {}, "fewer than before adds nothing");
    assert.deepEqual(counted.increase("a", true, { malformed_json: 3, truncated: 1 }), {}, "the most counted so far is remembered");
  });

  test("a trace that was not re-opened holds only new spans: all of it counts, whatever was remembered under its key", () => {
    const counted = new CountedOncePerTrace<"malformed_json">(10);
    counted.increase("a", false, { malformed_json: 1 });
    assert.deepEqual(counted.increase("a", false, { malformed_json: 1 }), { malformed_json: 1 });
    assert.deepEqual(counted.increase("a", true, { malformed_json: 1 }), {}, "the new trace's count is what is remembered now");
  });

  test("bounded: only traces with something counted are kept, the least recently evaluated forgotten first, and a forgotten trace re-opened counts again", () => {
    const counted = new CountedOncePerTrace<"malformed_json">(2);
    counted.increase("nothing", false, {});
    counted.increase("a", false, { malformed_json: 1 });
    counted.increase("b", false, { malformed_json: 1 });
    assert.equal(counted.size, 2, "the trace without notes is not kept");
    counted.increase("a", true, { malformed_json: 1 });
    counted.increase("c", false, { malformed_json: 1 });
    assert.equal(counted.size, 2);
    assert.deepEqual(counted.increase("a", true, { malformed_json: 1 }), {}, "a was evaluated again after b, so b was forgotten");
    assert.deepEqual(counted.increase("b", true, { malformed_json: 1 }), { malformed_json: 1 }, "forgotten: counted again");
  });

  test("no memory when the assembler keeps none (it then re-opens no trace)", () => {
    const counted = new CountedOncePerTrace<"malformed_json">(0);
    counted.increase("a", false, { malformed_json: 1 });
    assert.equal(counted.size, 0);
  });
});
