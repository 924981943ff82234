/** The trec_eval file parsers the reproduction tests rely on. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { parseExpectedOutput, parseQrels, parseRun, readTrecFile } from "../../../support/trec-files.js";

describe("trec_eval test file parsers", () => {
  test("qrels lines starting with # are comments; a # inside a docno is part of the id", () => {
    const plain = parseQrels(readTrecFile("qrels.test"));
    const commented = parseQrels(readTrecFile("qrels.test.with-comments"));
    assert.deepEqual([...plain.keys()], ["301", "302", "303"]);
    assert.deepEqual([...commented.keys()], ["301", "302", "303"]);
    // The commented copy renames one non-relevant docno to CR#93E-1860; everything else is equal.
    const renamed = new Map(commented.get("301"));
    assert.equal(renamed.get("CR#93E-1860"), 0);
    renamed.delete("CR#93E-1860");
    renamed.set("CR93E-1860", 0);
    assert.deepEqual(new Map([...renamed].sort()), new Map([...plain.get("301")!].sort()));
    assert.deepEqual(commented.get("302"), plain.get("302"));
    assert.equal(plain.get("301")!.get("CR93E-1282"), 1);
  });

  test("negative relevance values are kept", () => {
    const graded = parseQrels(readTrecFile("qrels.rel_level"));
    const grades = new Set([...graded.values()].flatMap((judgments) => [...judgments.values()]));
    assert.ok(grades.has(-1), "qrels.rel_level holds a -1");
    assert.ok(grades.has(4));
  });

  test("results with junk columns after the run id, tabs and padded scores", () => {
    const run = parseRun(readTrecFile("results.trunc"));
    assert.deepEqual([...run.topics.keys()], ["301", "303"]);
    assert.equal(run.runId, "STANDARD");
    assert.deepEqual(run.topics.get("301")![0], { id: "FBIS3-27619", score: 2.138276 });
    assert.equal(run.topics.get("301")!.length + run.topics.get("303")!.length, 584);
  });

  test("docnos containing # are ids, not comments", () => {
    const qrels = parseQrels(readTrecFile("qrels.comment.test"));
    assert.equal(qrels.size, 31);
    assert.equal(qrels.get("2024-127266")!.get("msmarco_v2.1_doc_05_1607548104#0_3077382650"), 2);
  });

  test("expected output lines keep the printed value", () => {
    const lines = parseExpectedOutput(readTrecFile("out.test.aq"));
    assert.deepEqual(
      lines.find((line) => line.measure === "map" && line.topic === "301"),
      { measure: "map", topic: "301", printed: "0.0324" },
    );
  });
});
