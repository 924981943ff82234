import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { tabSeparatedField } from "../../../store/clickhouse/tab-separated.js";
import { TabSeparatedBody } from "../../../store/clickhouse/tab-separated-body.js";

/** JSON documents as JSON.stringify writes them: escapes (backslashes) at the start, the end, in runs, beside characters of 2–4 bytes. */
const documents = [
  JSON.stringify({ text: 'a"b' }),
  JSON.stringify({ text: "\\\\", more: "\n\t\u0001" }),
  JSON.stringify(["é€🙂", 'é"€\\🙂', "plain"]),
  JSON.stringify({ "🙂": "\u2028\u2029", key: "x".repeat(40) }),
  JSON.stringify("\\"),
  JSON.stringify({ none: "no escape at all, ascii only" }),
];

/** The same line as text: the document escaped as any field is (tab-separated.ts), then encoded. */
function expectedLine(head: string, json: string, tail: string): string {
  return `${head}${tabSeparatedField(json)}${tail}\n`;
}

describe("TabSeparated body bytes", () => {
  test("a JSON document's backslashes are doubled in its bytes, wherever the chunk ends fall (before, inside, after it)", () => {
    // Small chunks and a sweep of lines before the document put a chunk's end at every byte of it, so each way
    // is taken: escaped in place, moved to a new chunk to be escaped, re-encoded in a chunk for characters of several bytes.
    for (const chunkBytes of [16, 64, 97]) {
      for (const json of documents) {
        for (let before = 0; before <= chunkBytes + 8; before += 1) {
          const body = new TabSeparatedBody(chunkBytes);
          const filler = "f".repeat(before);
          body.add(filler);
          body.addWithJson("h\té\t", json, "\tt");
          body.add("after");
          const expected = `${filler}\n${expectedLine("h\té\t", json, "\tt")}after\n`;
          assert.equal(body.bytes().toString("utf8"), expected, `chunk ${chunkBytes}, ${before} bytes before, document ${json}`);
          assert.equal(body.lines, 3);
        }
      }
    }
  });

  test("a document given as an array's items in UTF-8 is written as its text would be, at every chunk end", () => {
    const arrays = [[], [documents[0]!], documents, [documents[1]!, documents[4]!]];
    for (const chunkBytes of [16, 64, 97]) {
      for (let before = 0; before <= chunkBytes + 8; before += 1) {
        const filler = "f".repeat(before);
        for (const items of arrays) {
          const body = new TabSeparatedBody(chunkBytes);
          body.add(filler);
          body.addWithJson("h\t", { items: items.map((item) => Buffer.from(item, "utf8")) }, "\tt");
          body.add("after");
          const json = `[${items.join(",")}]`;
          assert.equal(body.bytes().toString("utf8"), `${filler}\n${expectedLine("h\t", json, "\tt")}after\n`, `array, chunk ${chunkBytes}, ${before} before, ${json}`);
          assert.equal(body.lines, 3);
        }
      }
    }
  });

  test("lines longer than a chunk continue in the next; characters of several bytes are never split", () => {
    const line = "aé€🙂".repeat(50);
    for (let before = 0; before < 20; before += 1) {
      const body = new TabSeparatedBody(16);
      body.add("x".repeat(before));
      body.add(line);
      assert.ok(body.bytes().equals(Buffer.from(`${"x".repeat(before)}\n${line}\n`, "utf8")));
    }
  });

  test("an empty body is no bytes", () => {
    assert.equal(new TabSeparatedBody().bytes().length, 0);
  });
});
