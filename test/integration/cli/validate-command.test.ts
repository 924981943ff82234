import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const ragscope = path.join(projectRoot, "bin/ragscope.js");

function run(...args: string[]) {
  const child = spawnSync(process.execPath, [ragscope, ...args], { encoding: "utf8", cwd: projectRoot });
  return { status: child.status, stdout: child.stdout, stderr: child.stderr };
}

describe("ragscope validate", () => {
  let folder: string;
  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-validate-"));
  });
  after(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  test("the bundled demo dataset is valid: exit 0", () => {
    const result = run("validate", "examples/datasets/policy-regression.yaml");
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /valid — \d+ cases/);
  });

  test("a file with problems: exit 1, every problem with its path and case id, no stack trace", async () => {
    const file = path.join(folder, "broken.yaml");
    await writeFile(
      file,
      ["dataset_id: d", "dataset_version: v1", "cases:", "  - case_id: ok", "    case_version: v1", "    input: q", "  - case_id: bad", "    case_version: v1", "    input: q", "    gold_evidence:", "      - text: only text", "    difficulty: Impossible", ""].join("\n"),
    );
    const result = run("validate", file);
    assert.equal(result.status, 1);
    assert.match(result.stderr, /cases\[1\]\.gold_evidence\[0\]\.document_id \(case_id bad\): required/);
    assert.match(result.stderr, /cases\[1\]\.difficulty \(case_id bad\): must be one of "Easy"/);
    assert.doesNotMatch(result.stderr, /\n\s+at /, "no stack trace");
  });

  test("reference_answer may be one text or a list of answers; an empty list or a blank entry is a problem", async () => {
    const valid = path.join(folder, "references.yaml");
    await writeFile(
      valid,
      ["dataset_id: d", "dataset_version: v1", "cases:", "  - case_id: one", "    case_version: v1", "    input: q", "    reference_answer: 北京", "  - case_id: several", "    case_version: v1", "    input: q", "    reference_answer: [国务院, 中华人民共和国国务院]", ""].join("\n"),
    );
    const accepted = run("validate", valid);
    assert.equal(accepted.status, 0, accepted.stderr);
    assert.match(accepted.stdout, /valid — 2 cases/);

    const invalid = path.join(folder, "bad-references.yaml");
    await writeFile(
      invalid,
      ["dataset_id: d", "dataset_version: v1", "cases:", "  - case_id: empty", "    case_version: v1", "    input: q", "    reference_answer: []", "  - case_id: blank", "    case_version: v1", "    input: q", "    reference_answer: [北京, \"  \"]", "  - case_id: number", "    case_version: v1", "    input: q", "    reference_answer: [42]", ""].join("\n"),
    );
    const rejected = run("validate", invalid);
    assert.equal(rejected.status, 1);
    assert.match(rejected.stderr, /cases\[0\]\.reference_answer \(case_id empty\): the list of reference answers is empty: give at least one answer, or leave reference_answer out/);
    assert.match(rejected.stderr, /cases\[1\]\.reference_answer\[1\] \(case_id blank\): a reference answer in the list is blank/);
    assert.match(rejected.stderr, /cases\[2\]\.reference_answer \(case_id number\): must be a text, or a list of texts with one acceptable answer each/);
  });

  test("a missing file and a missing argument are usage errors, not crashes", () => {
    const missing = run("validate", path.join(folder, "nope.yaml"));
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /nope\.yaml: 1 problem\n\s+\(file\): file not found/);
    const noArgument = run("validate");
    assert.notEqual(noArgument.status, 0);
    assert.match(noArgument.stderr, /missing required argument/);
  });
});
