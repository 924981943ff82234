/**
 * The indexes of a flattened list, found once a span for all its lists (collector/04-normalize/
 * flattened-list-indexes.ts), give for every prefix what the definition says: the N of every `<prefix>.N` and
 * `<prefix>.N.…` key whose N is digits only, sorted ascending, each once. The oracle below is that definition
 * written as a scan of every key per prefix, on keys built to hit its edges (nested lists, empty segments, leading
 * zeros, a number at the key's end, digits inside a segment).
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Attributes } from "../../../collector/00-otlp/span-record.js";
import { flattenedIndexes } from "../../../collector/04-normalize/flattened-list-indexes.js";

function indexesByDefinition(attributes: Attributes, prefix: string): number[] {
  const indexes = new Set<number>();
  for (const key of Object.keys(attributes)) {
    if (!key.startsWith(`${prefix}.`)) continue;
    const head = key.slice(prefix.length + 1).split(".")[0]!;
    if (/^\d+$/.test(head)) indexes.add(Number(head));
  }
  return [...indexes].sort((left, right) => left - right);
}

/** A deterministic generator, so a failure names a seed that reproduces it. */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

const SEGMENTS = ["retrieval", "documents", "document", "id", "llm", "input_messages", "message", "contents", "0", "1", "2", "10", "007", "", "x1", "1x", "gen_ai", "prompt"];

function randomAttributes(random: () => number): Attributes {
  const attributes: Attributes = {};
  const keys = 1 + Math.floor(random() * 40);
  for (let key = 0; key < keys; key += 1) {
    const length = 1 + Math.floor(random() * 7);
    const segments = Array.from({ length }, () => SEGMENTS[Math.floor(random() * SEGMENTS.length)]!);
    attributes[segments.join(".")] = "value";
  }
  return attributes;
}

/** Every prefix a key of the attributes could be read under: each run of its leading segments. */
function candidatePrefixes(attributes: Attributes): string[] {
  const prefixes = new Set<string>(["retrieval.documents", "absent"]);
  for (const key of Object.keys(attributes)) {
    const segments = key.split(".");
    for (let length = 1; length <= segments.length; length += 1) prefixes.add(segments.slice(0, length).join("."));
  }
  return [...prefixes];
}

describe("flattened list indexes", () => {
  test("a span's lists: documents, nested message contents, a number at the end of a key", () => {
    const attributes: Attributes = {
      "retrieval.documents.2.document.id": "c",
      "retrieval.documents.0.document.id": "a",
      "retrieval.documents.0.document.content": "text",
      "retrieval.documents.10": "bare",
      "llm.input_messages.0.message.contents.1.message_content.text": "hi",
      "llm.input_messages.3.message.role": "user",
      "retrieval.documents.x1.document.id": "not an index",
      "input.value": "question",
    };
    assert.deepEqual(flattenedIndexes(attributes, "retrieval.documents"), [0, 2, 10]);
    assert.deepEqual(flattenedIndexes(attributes, "llm.input_messages"), [0, 3]);
    assert.deepEqual(flattenedIndexes(attributes, "llm.input_messages.0.message.contents"), [1]);
    assert.deepEqual(flattenedIndexes(attributes, "input"), []);
    assert.deepEqual(flattenedIndexes(attributes, "retrieval"), []);
  });

  test("agrees with the definition for every prefix on 2,000 generated spans", () => {
    for (let seed = 1; seed <= 2_000; seed += 1) {
      const attributes = randomAttributes(generator(seed));
      for (const prefix of candidatePrefixes(attributes)) {
        assert.deepEqual(flattenedIndexes(attributes, prefix), indexesByDefinition(attributes, prefix), `seed ${seed}, prefix ${JSON.stringify(prefix)}, keys ${JSON.stringify(Object.keys(attributes))}`);
      }
    }
  });
});
