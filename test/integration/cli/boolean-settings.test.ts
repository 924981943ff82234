/**
 * Boolean settings (judge.enabled, alerts.table, RAGSCOPE_UI_BEHIND_TLS …)
 * take true or false and the other common spellings — 1/0, yes/no, on/off —
 * in any case; anything else is refused naming the setting and the words it
 * takes, from a variable or a config file (`ragscope config` as a subprocess).
 * RAGSCOPE_DEBUG reads the same words: `0` is off.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { main } from "../../../collector/wiring/cli/main.js";
import { runRagscope } from "../../support/run-ragscope.js";

const ACCEPTED_WORDS = /must be true or false \(also accepted, in any case: 1\/0, yes\/no, on\/off\)/;

describe("boolean settings", () => {
  let folder: string;
  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-boolean-"));
  });
  after(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  test("TRUE, On, yes and 1 switch a setting on; FALSE, off, No and 0 switch it off", () => {
    for (const word of ["TRUE", "On", "yes", "1"]) {
      const result = runRagscope(["config"], folder, { RAGSCOPE_JUDGE_ENABLED: word });
      assert.equal(result.status, 0, `${word}: ${result.stderr}`);
      assert.match(result.stdout, /^ {2}enabled: true # environment variable RAGSCOPE_JUDGE_ENABLED$/m, word);
    }
    for (const word of ["FALSE", "off", "No", "0"]) {
      const result = runRagscope(["config"], folder, { RAGSCOPE_JUDGE_ENABLED: word });
      assert.equal(result.status, 0, `${word}: ${result.stderr}`);
      assert.match(result.stdout, /^ {2}enabled: false # environment variable RAGSCOPE_JUDGE_ENABLED$/m, word);
    }
  });

  test("another word is refused naming the variable and the words accepted", () => {
    const result = runRagscope(["config"], folder, { RAGSCOPE_JUDGE_ENABLED: "flase" });
    assert.equal(result.status, 2);
    assert.match(result.stderr, /environment variable RAGSCOPE_JUDGE_ENABLED: must be true or false/);
    assert.match(result.stderr, ACCEPTED_WORDS);
    assert.match(result.stderr, /not "flase"/);
  });

  test("in a config file, a word that is not a boolean is refused naming the key and the words accepted", async () => {
    const file = path.join(folder, "maybe.yaml");
    await writeFile(file, "judge:\n  enabled: maybe\n");
    const result = runRagscope(["config", "--config", file], folder);
    assert.equal(result.status, 2);
    assert.match(result.stderr, /key judge\.enabled: must be true or false/);
    assert.match(result.stderr, ACCEPTED_WORDS);
  });
});

describe("RAGSCOPE_DEBUG", () => {
  let folder: string;
  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-debug-"));
  });
  after(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  /** `ragscope --version` whose standard output fails (a closed pipe): an unexpected error, described on stderr. */
  async function failingVersion(debug: string): Promise<{ code: number; errors: string[] }> {
    const errors: string[] = [];
    const output = { log: () => { throw new Error("standard output is closed"); }, error: (line: string) => errors.push(line) };
    const code = await main(["node", "ragscope", "--version"], output, { RAGSCOPE_DEBUG: debug });
    return { code, errors };
  }

  test("0, false, no and off leave the stack trace out, as unset does; 1 and true print it", async () => {
    for (const word of ["0", "false", "No", "OFF", ""]) {
      const { code, errors } = await failingVersion(word);
      assert.equal(code, 2);
      assert.deepEqual(errors, ["ragscope: unexpected error: standard output is closed (set RAGSCOPE_DEBUG=1 for the stack trace)"], `RAGSCOPE_DEBUG=${JSON.stringify(word)}`);
    }
    for (const word of ["1", "true"]) {
      const { errors } = await failingVersion(word);
      assert.equal(errors[0], "ragscope: unexpected error: standard output is closed");
      assert.match(errors[1] ?? "", /^Error: standard output is closed\n\s+at /, `RAGSCOPE_DEBUG=${word}: the stack trace`);
    }
  });

  test("another word is refused before the command runs, naming the variable and the words accepted", () => {
    const result = runRagscope(["config"], folder, { RAGSCOPE_DEBUG: "verbose" });
    assert.equal(result.status, 2);
    assert.match(result.stderr, /^ragscope: environment variable RAGSCOPE_DEBUG: must be true or false/);
    assert.match(result.stderr, ACCEPTED_WORDS);
    assert.match(result.stderr, /not "verbose"/);
    assert.equal(result.stdout, "", "the command did not run");
  });
});
