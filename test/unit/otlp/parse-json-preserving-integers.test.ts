import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parseJsonPreservingIntegers } from "../../../collector/00-otlp/parse-json-preserving-integers.js";

describe("parseJsonPreservingIntegers", () => {
  test("integers of 16 digits or more become exact strings; shorter ones stay numbers", () => {
    assert.deepEqual(parseJsonPreservingIntegers('{"a": 1544712660000000001, "b": [-9223372036854775808], "c": 42}'), {
      a: "1544712660000000001",
      b: ["-9223372036854775808"],
      c: 42,
    });
  });

  test("fractions, exponents and string contents are left alone", () => {
    const text = '{"f": 0.12345678901234567890, "e": 1e1234567890123456, "g": 1234567890123456.5, "s": "x\\"12345678901234567890\\\\", "t": "9999999999999999"}';
    assert.deepEqual(parseJsonPreservingIntegers(text), JSON.parse(text));
  });
});
