import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { AttributeRecorder, toAttributeValue } from "../../../instrumentation/safe-attributes.js";
import { recordChunks } from "../../../instrumentation/chunk-attributes.js";

describe("toAttributeValue", () => {
  test("keeps primitives and homogeneous arrays", () => {
    assert.equal(toAttributeValue("a"), "a");
    assert.equal(toAttributeValue(""), "");
    assert.equal(toAttributeValue(0), 0);
    assert.equal(toAttributeValue(false), false);
    assert.deepEqual(toAttributeValue(["a", "b"]), ["a", "b"]);
    assert.deepEqual(toAttributeValue([1, 2.5]), [1, 2.5]);
    assert.deepEqual(toAttributeValue([true]), [true]);
    assert.deepEqual(toAttributeValue([]), []);
  });

  test("rejects what OTel cannot carry", () => {
    for (const value of [undefined, null, Number.NaN, Number.POSITIVE_INFINITY, { a: 1 }, ["a", 1], [null], [Number.NaN], 10n, () => 1]) {
      assert.equal(toAttributeValue(value), undefined, String(value));
    }
  });

  test("returns a copy of arrays, so later changes by the application do not alter the span", () => {
    const groups = ["staff"];
    const value = toAttributeValue(groups);
    groups.push("admin");
    assert.deepEqual(value, ["staff"]);
  });
});

describe("AttributeRecorder", () => {
  test("skips absent values quietly and notes invalid ones", () => {
    const recorder = new AttributeRecorder();
    recorder.set("a", undefined);
    recorder.set("b", null);
    recorder.set("c", Number.NaN);
    recorder.set("d", { nested: true });
    recorder.set("e", "kept");
    assert.deepEqual(recorder.attributes, { e: "kept" });
    assert.deepEqual(recorder.problems, ["d: not a valid attribute value"]);
  });
});

describe("recordChunks", () => {
  test("records each chunk at the index of its rank, leaving unrecorded places empty; content only with captureText", () => {
    const recorder = new AttributeRecorder();
    recordChunks(
      recorder,
      [
        { record: { chunkId: "x", text: "body", sectionId: "s1" }, rank: 1 },
        { record: { chunkId: "y", score: 0.5 }, rank: 4 },
      ],
      { openInference: "retrieval.documents", ragscope: "ragscope.documents" },
      false,
    );
    assert.deepEqual(recorder.attributes, {
      "retrieval.documents.0.document.id": "x",
      "retrieval.documents.0.document.metadata": JSON.stringify({ section_id: "s1" }),
      "ragscope.documents.0.section_id": "s1",
      "ragscope.documents.0.rank": 1,
      "retrieval.documents.3.document.id": "y",
      "retrieval.documents.3.document.score": 0.5,
      "ragscope.documents.3.rank": 4,
    });
    assert.deepEqual(recorder.problems, []);
  });
});
