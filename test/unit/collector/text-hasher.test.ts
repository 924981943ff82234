/** TextHasher's digest is the hash of the texts' concatenation in UTF-8, wherever its buffer fills (inside characters of 2–4 bytes too). */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { test } from "node:test";
import { TextHasher } from "../../../store/clickhouse/text-hasher.js";

test("the digest of the texts' concatenation, for every buffer size from 4 bytes up", () => {
  const texts = ["", "plain ascii", "é€🙂 mixed", "🙂".repeat(7), '{"evaluated_at":""}', "\u2028\u0000\\", "x".repeat(300)];
  const expected = createHash("sha256").update(texts.join(""), "utf8").digest("hex");
  for (let bufferBytes = 1; bufferBytes <= 64; bufferBytes += 1) {
    const hash = createHash("sha256");
    const hasher = new TextHasher(hash, bufferBytes);
    for (const text of texts) hasher.add(text);
    hasher.flush();
    assert.equal(hash.digest("hex"), expected, `buffer of ${bufferBytes} bytes`);
  }
});
