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

  test("--stats over several files: each file's mix, then the mix of all their cases together (a case in two files counted once)", async () => {
    // first: one high-frequency and one multi-hop case; second: the same multi-hop case again and an unanswerable one.
    // Together, by hand: 3 distinct cases, one in each of three categories, 1 of 3 = 33%.
    const shared = { case_id: "hop", case_version: "v1", input: "which city hosts the office of the team that owns search?", metadata: { mix_category: "multi_hop", split: "dev" } };
    const first = path.join(folder, "stats-first.json");
    const second = path.join(folder, "stats-second.json");
    await writeFile(first, JSON.stringify({ dataset_id: "d", dataset_version: "v1", cases: [{ case_id: "often", case_version: "v1", input: "what are the opening hours?", metadata: { mix_category: "high_frequency", split: "dev" } }, shared] }));
    await writeFile(second, JSON.stringify({ dataset_id: "d", dataset_version: "v1", cases: [shared, { case_id: "none", case_version: "v1", input: "what will the share price be next year?", answerable: false, metadata: { split: "regression" } }] }));
    const result = run("validate", "--stats", first, second);
    assert.equal(result.status, 0, result.stderr);
    const lines = result.stdout.split("\n").map((line) => line.trim().replace(/\s+/g, " "));
    const total = lines.indexOf("Total of 2 files: 3 cases (1 given in more than one file, counted once)");
    assert.ok(total > lines.indexOf(`${second}: valid — 2 cases, Eval Case format`), result.stdout);
    assert.deepEqual(lines.slice(total + 1, total + 7), [
      "Mix of 3 cases (seed 004 §二.2):",
      "high_frequency 1 33% recommended 50%",
      "long_tail 0 0% recommended 20%",
      "multi_hop 1 33% recommended 10%",
      "unanswerable 1 33% recommended 10%",
      "adversarial 0 0% recommended 10%",
    ]);
    assert.ok(lines.includes("Split dev: 2 cases") && lines.includes("Split regression: 1 case"), result.stdout);
    // One file: its own mix only.
    assert.doesNotMatch(run("validate", "--stats", first).stdout, /^Total/m);
  });

  test("a file with problems: exit 1, every problem with its path and case id, no stack trace", async () => {
    const file = path.join(folder, "broken.yaml");
    await writeFile(
      file,
      ["dataset_id: d", "dataset_version: v1", "cases:", "  - case_id: ok", "    case_version: v1", "    input: q", "  - case_id: bad", "    case_version: v1", "    input: q", "    gold_evidence:", "      - text: only text", "    difficulty: Impossible", ""].join("\n"),
    );
    const result = run("validate", file);
    assert.equal(result.status, 1);
    // The file's headline after the command's name, as eval's and gate's errors; its problems indented under it.
    assert.match(result.stderr, /^ragscope validate: \S*broken\.yaml: \d+ problems\n {2}\S/m);
    assert.match(result.stderr, /cases\[1\]\.gold_evidence\[0\]\.document_id \(case_id bad\): required/);
    assert.match(result.stderr, /cases\[1\]\.difficulty \(case_id bad\): must be one of "Easy"/);
    assert.doesNotMatch(result.stderr, /\n\s+at /, "no stack trace");
  });

  test("an Eval Case value in the wrong letter case (`difficulty: easy`, as the simple format takes it) names the spelling meant", async () => {
    const file = path.join(folder, "letter-case.yaml");
    await writeFile(
      file,
      ["dataset_id: d", "dataset_version: v1", "cases:", "  - case_id: lower", "    case_version: v1", "    input: q", "    difficulty: hard negative", "  - case_id: unknown", "    case_version: v1", "    input: q", "    difficulty: Impossible", ""].join("\n"),
    );
    const result = run("validate", file);
    assert.equal(result.status, 1);
    assert.match(result.stderr, /line 7, cases\[0\]\.difficulty \(case_id lower\): must be one of "Easy", "Medium", "Hard", "Hard Negative", "Adversarial" — write "Hard Negative": letter case counts here\n/);
    // A value that is no allowed one in any letter case gets the list alone.
    assert.match(result.stderr, /line 11, cases\[1\]\.difficulty \(case_id unknown\): must be one of "Easy", "Medium", "Hard", "Hard Negative", "Adversarial"\n/);
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

  test("a field of the wrong type is named as such, not as missing; a simple-format case without its question is told so", async () => {
    const file = path.join(folder, "types.yaml");
    await writeFile(
      file,
      [
        "- id: number-question",
        "  question: 42",
        "- id: listless",
        "  question: q",
        "  relevant_document_ids: doc-1",
        "  metadata: [1, 2]",
        "- id: no-question",
        "  reference_answer: x",
        "- case_id: full",
        "  dataset_id: d",
        "  input: {query: hello}",
        "",
      ].join("\n"),
    );
    const result = run("validate", file);
    assert.equal(result.status, 1);
    const lines = result.stderr.split("\n").map((line) => line.trim());
    for (const expected of [
      "line 2, [0].question (case_id number-question): must be a text, not a number",
      "line 5, [1].relevant_document_ids (case_id listless): must be a list, not a text",
      "line 6, [1].metadata (case_id listless): must be a mapping of fields, not a list",
      "line 7, [2].question (case_id no-question): required",
      "line 9, [3].case_version (case_id full): required",
      "line 9, [3].dataset_version (case_id full): required",
      "line 11, [3].input (case_id full): must be a text, not a mapping of fields",
    ]) {
      assert.ok(lines.includes(expected), `${expected}\n${result.stderr}`);
    }
    assert.doesNotMatch(result.stderr, /unknown field "id"|Invalid input/);
    assert.doesNotMatch(result.stderr, /hello/, "a value is never printed: a blind case's gold data stays out of the log");
  });

  test("a missing file cannot be decided (exit 2, README \"Exit codes\"), a missing argument is a usage error, neither a crash", () => {
    const missing = run("validate", path.join(folder, "nope.yaml"));
    assert.equal(missing.status, 2);
    assert.match(missing.stderr, /^ragscope validate: \S*nope\.yaml: dataset file not found \(looked in .*nope\.yaml\); check the path\n$/);
    const noArgument = run("validate");
    assert.notEqual(noArgument.status, 0);
    assert.match(noArgument.stderr, /missing required argument/);
  });
});
