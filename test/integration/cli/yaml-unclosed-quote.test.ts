/**
 * A quoted value left open in a dataset file: the YAML library stops at the end of the file, so its position alone
 * sends the reader to the last line. `ragscope validate` (as a subprocess) also names the line the quote opens on.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { runRagscope } from "../../support/run-ragscope.js";

describe("an unclosed quote in a YAML dataset", () => {
  let folder: string;
  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-unclosed-quote-"));
  });
  after(() => rm(folder, { recursive: true, force: true }));

  test("is reported with the line its quote opens on, double or single", async () => {
    for (const quote of ['"', "'"]) {
      const file = path.join(folder, "cases.yaml");
      await writeFile(file, `case_id: c1\nquestion: ${quote}What is the refund window?\ngold_answer: 30 days\ncategory: factual\n`);
      const result = runRagscope(["validate", file], folder);
      assert.equal(result.status, 1, result.stderr);
      assert.match(result.stderr, /invalid YAML: the quoted value that starts at line 2 is not closed \(.*\); close it with its quote character/, `${quote}: ${result.stderr}`);
    }
  });
});
