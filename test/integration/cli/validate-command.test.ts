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

  test("a missing file and a missing argument are usage errors, not crashes", () => {
    const missing = run("validate", path.join(folder, "nope.yaml"));
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /nope\.yaml: 1 problem\n\s+\(file\): file not found/);
    const noArgument = run("validate");
    assert.notEqual(noArgument.status, 0);
    assert.match(noArgument.stderr, /missing required argument/);
  });
});
