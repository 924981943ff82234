/**
 * The corpus file's limits beyond its size in bytes (collector/wiring/dataset/load-corpus-index.ts): the number of
 * distinct ids — a JavaScript Set holds at most 2^24 entries, and a file of 17 million short ids, well within the
 * 256 MiB bound, ended `eval` in "unexpected error: Set maximum size exceeded" — and a UTF-8 byte order mark, which
 * is no part of the first id or JSON line. The command-line refusals are in
 * test/e2e/experiments/eval-corpus-data-missing.test.ts.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { loadCorpusIndex, MAX_CORPUS_DOCUMENT_IDS } from "../../../collector/wiring/dataset/load-corpus-index.js";

let folder: string;
before(async () => {
  folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-corpus-limits-"));
});
after(async () => {
  await rm(folder, { recursive: true, force: true });
});

describe("a corpus file's limits", () => {
  test("more distinct ids than a run takes is refused, naming the line and the bound; repeats of an id count once", async () => {
    const file = path.join(folder, "corpus.txt");
    await writeFile(file, ["doc_a", "doc_b", "doc_a", "doc_c", "doc_d", "doc_e"].join("\n"));
    const refused = await loadCorpusIndex(file, 3);
    assert.ok(!refused.ok);
    assert.deepEqual(refused.error, [`${file}: line 5: the corpus file lists more than 3 distinct document ids, the most a run takes; list each document once (not each chunk), or run the dataset's cases against the part of the corpus they name`]);
    const taken = await loadCorpusIndex(file, 5);
    assert.ok(taken.ok);
    assert.deepEqual([...taken.value.documentIds], ["doc_a", "doc_b", "doc_c", "doc_d", "doc_e"]);
    assert.ok(MAX_CORPUS_DOCUMENT_IDS < 2 ** 24, "the bound stays below what a Set holds");
  });

  test("a byte order mark at the start is not part of the first id, in either format", async () => {
    const text = path.join(folder, "bom.txt");
    await writeFile(text, "\uFEFFdoc_a\ndoc_b\n");
    const lines = path.join(folder, "bom.jsonl");
    await writeFile(lines, '\uFEFF{"document_id": "doc_a"}\n{"document_id": "doc_b"}\n');
    for (const file of [text, lines]) {
      const loaded = await loadCorpusIndex(file);
      assert.ok(loaded.ok, JSON.stringify(loaded));
      assert.deepEqual([...loaded.value.documentIds], ["doc_a", "doc_b"], file);
    }
  });
});
