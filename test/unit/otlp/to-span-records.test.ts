import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { toSpanRecords } from "../../../collector/00-otlp/to-span-records.js";
import { sampleTracesDocument, traceA, traceC } from "./sample-traces-document.js";

describe("toSpanRecords", () => {
  const document = sampleTracesDocument();
  const records = toSpanRecords(document);

  test("one record per span, in document order", () => {
    assert.deepEqual(
      records.map((record) => record.spanId),
      ["00f067aa0ba902b7", "b7ad6b7169203331", "1111111111111111", "2222222222222222", "3333333333333333", "4444444444444444"],
    );
  });

  test("attributes become plain values", () => {
    const root = records[0]!;
    assert.equal(root.traceId, traceA);
    assert.deepEqual(root.attributes, {
      text: "héllo wörld ✓",
      "empty.text": "",
      flag: false,
      count: 42,
      zero: 0,
      // Past 2^53 an int64 is kept exact as its decimal string.
      "int64.max": "9223372036854775807",
      "int64.min": "-9223372036854775808",
      score: 0.875,
      "not.a.number": Number.NaN,
      infinite: Number.NEGATIVE_INFINITY,
      raw: Buffer.from([0, 1, 2, 250, 255]).toString("base64"),
      unset: null,
      list: ["a", -7, null, []],
      object: { nested: { deep: true }, doubles: [1.5, -0.25] },
    });
  });

  test("resource and scope are copied onto each record", () => {
    for (const record of records.slice(0, 4)) {
      assert.deepEqual(record.resource, { "service.name": "rag-service", "service.instance.id": "pod-7" });
    }
    assert.deepEqual(records[0]!.scope, { name: "ragscope", version: "0.1.0" });
    assert.deepEqual(records[3]!.scope, { name: "", version: "" });
    const fifth = records[4]!;
    assert.equal(fifth.traceId, traceC);
    assert.deepEqual(fifth.resource, {});
    assert.deepEqual(fifth.scope, { name: "other-library", version: "9" });
    assert.notEqual(records[0]!.resource, records[1]!.resource, "records do not share mutable objects");
  });

  test("span fields, events and status", () => {
    const root = records[0]!;
    assert.equal(root.parentSpanId, "");
    assert.equal(records[2]!.parentSpanId, "00f067aa0ba902b7");
    assert.equal(root.name, "rag.request");
    assert.equal(root.kind, 2);
    assert.equal(root.startTimeUnixNano, 1544712660000000001n);
    assert.equal(root.endTimeUnixNano, 1544712661999999999n);
    assert.deepEqual(root.status, { code: 2, message: "generation failed" });
    assert.deepEqual(root.events, [
      { name: "first.token", timeUnixNano: 1544712660500000000n, attributes: { "ttft.ms": 120.5 } },
      { name: "", timeUnixNano: 1544712660600000000n, attributes: {} },
    ]);
    assert.equal(records[4]!.startTimeUnixNano, 18446744073709551615n);
  });

  test("a repeated key keeps its last value; __proto__ is an ordinary key", () => {
    const [record] = toSpanRecords({
      resourceSpans: [
        {
          resource: { attributes: [], droppedAttributesCount: 0 },
          schemaUrl: "",
          scopeSpans: [
            {
              scope: { name: "", version: "", attributes: [], droppedAttributesCount: 0 },
              schemaUrl: "",
              spans: [
                {
                  ...document.resourceSpans[0]!.scopeSpans[0]!.spans[1]!,
                  attributes: [
                    { key: "k", value: { stringValue: "first" } },
                    { key: "k", value: { stringValue: "last" } },
                    { key: "__proto__", value: { kvlistValue: { values: [{ key: "polluted", value: { boolValue: true } }] } } },
                  ],
                },
              ],
            },
          ],
        },
      ],
    });
    assert.equal(record!.attributes["k"], "last");
    assert.deepEqual(Object.keys(record!.attributes), ["k", "__proto__"]);
    assert.equal(Object.getPrototypeOf(record!.attributes), Object.prototype);
    assert.equal(({} as Record<string, unknown>)["polluted"], undefined);
  });
});
