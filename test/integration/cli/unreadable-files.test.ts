/**
 * A file flag or argument naming a file the command cannot use — not there, a
 * folder, or a file this user may not read (or, for an output, a folder or a
 * path under a file) — as a user meets it (bin/ragscope.js as a subprocess):
 * one line naming the file as typed, what is wrong and how to fix it, and exit
 * 2 (README "Exit codes": an unreadable file is a usage error, never a dataset
 * with problems), before the command does any work. The same words for every
 * command, after the command's name (`ragscope validate: …`) where the command
 * prefixes its errors.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const ragscope = path.join(projectRoot, "bin/ragscope.js");

// root reads anything: the permission cases then run as nobody, which may read the project but not a 0600 file of root's.
const root = process.getuid?.() === 0;
const asUser = root ? { uid: 65534, gid: 65534 } : {};

describe("a file the command cannot use", () => {
  let folder: string;
  const run = (args: readonly string[]) => {
    const child = spawnSync(process.execPath, [ragscope, ...args], { encoding: "utf8", cwd: folder, env: { ...process.env, RAGSCOPE_CLICKHOUSE_URL: "", RAGSCOPE_CONFIG: "" }, ...asUser });
    return { status: child.status, stdout: child.stdout, stderr: child.stderr };
  };
  /** The command refuses with exactly these stderr lines and exit 2. */
  const refuses = (args: readonly string[], expected: readonly string[]) => {
    const result = run(args);
    assert.deepEqual(result.stderr.trim().split("\n"), expected, `ragscope ${args.join(" ")}\n${result.stdout}${result.stderr}`);
    assert.equal(result.status, 2, `ragscope ${args.join(" ")}: exit code`);
  };

  const notFound = (file: string, kind: string) => `${file}: ${kind} not found (looked in ${path.join(folder, file)}); check the path`;
  const aFolder = (file: string, kind: string) => `${file}: is a folder, not a ${kind}; name the file itself`;
  const notPermitted = (file: string, kind: string) =>
    `${file}: ${kind} cannot be read: permission denied for the user running ragscope; give it read permission on the file and its folders (chmod, chown), or name a copy it can read`;
  /** Each way a file to read cannot be used, with the line that says so. */
  const unreadable = (kind: string) =>
    [
      ["missing.yaml", notFound("missing.yaml", kind)],
      ["a-folder.yaml", aFolder("a-folder.yaml", kind)],
      ["not-readable.yaml", notPermitted("not-readable.yaml", kind)],
    ] as const;

  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-unreadable-"));
    await chmod(folder, 0o777);
    await mkdir(path.join(folder, "a-folder.yaml"));
    const dataset = ["dataset_id: d", "dataset_version: v1", "cases:", "  - case_id: c1", "    case_version: v1", "    input: a question", ""].join("\n");
    await writeFile(path.join(folder, "dataset.yaml"), dataset);
    await writeFile(path.join(folder, "not-readable.yaml"), dataset, { mode: 0o600 });
    // Not root: the owner is refused too, with no permission at all.
    if (!root) await chmod(path.join(folder, "not-readable.yaml"), 0o000);
    await writeFile(path.join(folder, "task.mjs"), "export default async () => 'an answer';\n");
    await writeFile(path.join(folder, "a-file"), "");
  });
  after(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  test("validate: `ragscope validate: missing.yaml: dataset file not found …; check the path`, not a problem at an unnamed place", () => {
    for (const [file, line] of unreadable("dataset file")) refuses(["validate", file], [`ragscope validate: ${line}`]);
  });

  test("validate: a readable file beside one that cannot be read is still checked; the exit is 2", () => {
    const result = run(["validate", "dataset.yaml", "missing.yaml"]);
    assert.equal(result.status, 2);
    assert.match(result.stdout, /^dataset\.yaml: valid — 1 case/);
    assert.deepEqual(result.stderr.trim().split("\n"), [`ragscope validate: ${notFound("missing.yaml", "dataset file")}`]);
  });

  test("dataset push: the same line, exit 2 — a folder too, which was a dataset with a problem (exit 1) — and nothing pushed", () => {
    for (const [file, line] of unreadable("dataset file")) refuses(["dataset", "push", file, "dataset.yaml", "--data-dir", "store"], [`ragscope dataset push: ${line}`, "ragscope dataset push: nothing pushed (a file above cannot be read)"]);
  });

  test("eval --dataset and serve --dataset: the same line, exit 2", () => {
    for (const [file, line] of unreadable("dataset file")) {
      refuses(["eval", "--dataset", file, "--task", "task.mjs", "--data-dir", "store"], [`ragscope eval: ${line}`]);
      refuses(["serve", "--dataset", file, "--data-dir", "store", "--port", "0", "--grpc-port", "off", "--metrics-port", "0", "--ui-port", "0"], [line]);
    }
  });

  test("eval --task: a folder or a module this user may not read is named as the task module, not as an import error", () => {
    refuses(["eval", "--dataset", "dataset.yaml", "--task", "missing.mjs", "--data-dir", "store"], [`ragscope eval: ${notFound("missing.mjs", "task module")}`]);
    refuses(["eval", "--dataset", "dataset.yaml", "--task", "a-folder.yaml", "--data-dir", "store"], [`ragscope eval: ${aFolder("a-folder.yaml", "task module")}`]);
    refuses(["eval", "--dataset", "dataset.yaml", "--task", "not-readable.yaml", "--data-dir", "store"], [`ragscope eval: ${notPermitted("not-readable.yaml", "task module")}`]);
  });

  test("gate --gates and eval --gates: the same lines for the gate file, each after its command's name", () => {
    for (const [file, line] of unreadable("gate file")) {
      refuses(["gate", "--run", "r1", "--gates", file, "--data-dir", "store"], [`ragscope gate: ${line}`]);
      refuses(["eval", "--dataset", "dataset.yaml", "--task", "task.mjs", "--gates", file, "--data-dir", "store"], [`ragscope eval: ${line}`]);
    }
  });

  test("eval --corpus: the same lines for the corpus file, before any case runs", () => {
    for (const [file, line] of unreadable("corpus file")) refuses(["eval", "--dataset", "dataset.yaml", "--task", "task.mjs", "--corpus", file, "--data-dir", "store"], [`ragscope eval: ${line}`]);
  });

  test("config --config: a file this user may not read names the permission to give, not the path to check", () => {
    refuses(["config", "--config", "not-readable.yaml"], [
      "ragscope config: the configuration is invalid",
      `  config file ${path.join(folder, "not-readable.yaml")}: cannot read it (permission denied); give the user running ragscope read permission on it (chmod, chown), or name a copy it can read with --config (or RAGSCOPE_CONFIG)`,
    ]);
  });

  test("outputs: a folder, or a path under a file, is refused before the command reads the store or runs a case", () => {
    refuses(["report", "--out", "a-folder.yaml", "--data-dir", "store"], [`ragscope report: a-folder.yaml: is a folder, not a report file (--out); name a file, e.g. ${path.join("a-folder.yaml", "report.html")}`]);
    refuses(["report", "--out", "a-file/report.html", "--data-dir", "store"], [
      `ragscope report: a-file/report.html: the report file (--out) cannot be written: a part of its path is a file, not a folder (${path.join(folder, "a-file/report.html")}); name another path`,
    ]);
    refuses(["dead-letters", "--body", "some-letter", "--out", "a-folder.yaml", "--data-dir", "store"], ["ragscope dead-letters: a-folder.yaml: is a folder, not a letter file (--out); name a file"]);
    refuses(["eval", "--dataset", "dataset.yaml", "--task", "task.mjs", "--output", "a-file/results.json", "--data-dir", "store"], [
      `ragscope eval: a-file/results.json: the results file (--output) cannot be written: a part of its path is a file, not a folder (${path.join(folder, "a-file/results.json")}); name another path`,
    ]);
  });
});
