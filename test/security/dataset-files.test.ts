/**
 * Dataset files are input from outside. Through `ragscope validate` as a
 * subprocess: a YAML alias bomb, a YAML file over the size limit (the parser
 * needs ~45× the file in memory: a 100,000-case file ran out of memory) and
 * bytes that are not UTF-8 each end in one clear problem and exit 1 — not a
 * silent exit, an out-of-memory crash, or ids quietly altered.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { recordAttack, residentMemoryMb } from "../support/attack-report.js";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const ragscope = path.join(projectRoot, "bin/ragscope.js");

function validate(file: string) {
  // A bound on the child's heap: an attack that needs more memory fails the test instead of the machine.
  const child = spawnSync(process.execPath, ["--max-old-space-size=512", ragscope, "validate", file], { encoding: "utf8", timeout: 120_000 });
  return { status: child.status, output: `${child.stdout}${child.stderr}` };
}

describe("hostile dataset files", () => {
  let folder: string;
  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-dataset-attacks-"));
  });
  after(async () => rm(folder, { recursive: true, force: true }));

  test("a YAML alias bomb: one problem naming the alias limit, exit 1", async () => {
    const levels = ["a: &a [x, x, x, x, x, x, x, x, x, x]"];
    for (let level = 1; level < 9; level += 1) levels.push(`${String.fromCharCode(97 + level)}: &${String.fromCharCode(97 + level)} [${Array(10).fill(`*${String.fromCharCode(96 + level)}`).join(", ")}]`);
    const file = path.join(folder, "bomb.yaml");
    await writeFile(file, `${levels.join("\n")}\ncase_id: bomb\n`);
    const result = validate(file);
    assert.equal(result.status, 1, result.output);
    assert.match(result.output, /bomb\.yaml: 1 problem\n\s+\(file\): invalid YAML: .*at most 100 alias uses; write repeated parts out, or use JSON/);
    recordAttack({ attack: "YAML alias bomb (10^9 nodes)", outcome: "exit 1, one problem (alias limit)" });
  });

  test("a YAML file over 16 MiB: the limit and the way out (JSON), exit 1, before any parsing", async () => {
    const file = path.join(folder, "huge.yaml");
    await writeFile(file, "# padding\n".repeat(1_700_000));
    const result = validate(file);
    assert.equal(result.status, 1, result.output);
    assert.match(result.output, /over the 16 MiB limit for YAML datasets .* write it as JSON \(\.json\), which loads up to 256 MiB/);
    recordAttack({ attack: "YAML dataset over 16 MiB", outcome: "exit 1 before parsing (size limit)" });
  });

  test("bytes that are not UTF-8: the line named, nothing replaced, exit 1", async () => {
    const file = path.join(folder, "latin1.yaml");
    await writeFile(file, Buffer.concat([Buffer.from("case_id: ok\ntitle: caf"), Buffer.from([0xe9]), Buffer.from("\n")]));
    const result = validate(file);
    assert.equal(result.status, 1, result.output);
    assert.match(result.output, /latin1\.yaml: 1 problem\n\s+line 2: not valid UTF-8: the file must be UTF-8 encoded/);
    recordAttack({ attack: "dataset bytes that are not UTF-8", outcome: "exit 1 naming the line; nothing replaced" });
  });
});
