/**
 * A quoted value left open in a dataset, config or gate file: the YAML library stops at the end of the file, so its
 * position alone sends the reader to the last line. `ragscope validate` and `ragscope config` (as subprocesses) also
 * name the line the quote opens on.
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

  test("in a config file and in a gate file too", async () => {
    const config = path.join(folder, "ragscope.yaml");
    await writeFile(config, `receiver:\n  host: "127.0.0.1\n  port: 4318\nsink:\n  maxBatch: 500\n`);
    const configResult = runRagscope(["config", "--config", config], folder);
    assert.equal(configResult.status, 2, configResult.stderr);
    assert.match(configResult.stderr, /not valid YAML or JSON \(the quoted value that starts at line 2 is not closed \(.*\); close it with its quote character\)/, configResult.stderr);
    const gate = path.join(folder, "gates.yaml");
    await writeFile(gate, `retrieval:\n  recall_at_5: '>= 0.9\ngeneration:\n  faithfulness: ">= 0.8"\n`);
    const gateResult = runRagscope(["config"], folder, { RAGSCOPE_ALERT_GATE_FILE: gate });
    assert.equal(gateResult.status, 2, gateResult.stderr);
    assert.match(gateResult.stderr, /gates\.yaml: the quoted value that starts at line 2 is not closed \(.*\); close it with its quote character — the gate file is not valid YAML or JSON/, gateResult.stderr);
  });
});
