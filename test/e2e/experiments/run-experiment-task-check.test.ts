/**
 * `runExperiment` from code (`import { runExperiment } from "ragscope/experiments"`,
 * README "Evaluate your own pipeline") given its task as a module's path, as
 * `dataset` and `gates` are given: it called the text on every case, stored a
 * failed case per case ("task is not a function") and blocked the run. Now it
 * is refused before anything runs, saying how to pass the module. As a user's
 * program meets it: a Node process importing the package by its name (the
 * built dist/, through the package's exports).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { projectRoot } from "./support/run-ragscope.js";

let folder: string;

before(async () => {
  folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-task-check-"));
  await writeFile(path.join(folder, "cases.yaml"), "- id: refund_speed\n  question: How fast is a refund?\n");
  await writeFile(path.join(folder, "task.mjs"), "export default async () => 'Within 7 days.';\n");
});

after(async () => {
  await rm(folder, { recursive: true, force: true });
});

/** A program that calls runExperiment with `task` written as given, and prints what it threw. */
function runWithTask(taskSource: string) {
  const dataDir = path.join(folder, "store");
  const program = [
    'import { runExperiment } from "ragscope/experiments";',
    "try {",
    `  await runExperiment({ dataset: ${JSON.stringify(path.join(folder, "cases.yaml"))}, task: ${taskSource}, runId: "task-check", dataDir: ${JSON.stringify(dataDir)} });`,
    '  console.log("ran");',
    "} catch (error) {",
    "  console.log(JSON.stringify({ name: error.constructor.name, message: error.message }));",
    "}",
  ].join("\n");
  // cwd in the project: the package imports itself by its name, as an installed dependency is imported.
  const child = spawnSync(process.execPath, ["--input-type=module", "-e", program], { cwd: projectRoot, encoding: "utf8", env: { ...process.env, RAGSCOPE_CONFIG: "", RAGSCOPE_CLICKHOUSE_URL: "" } });
  assert.equal(child.status, 0, child.stderr);
  return { printed: child.stdout.trim(), storeCreated: existsSync(dataDir) };
}

describe("runExperiment refuses a task that is not a function, before anything runs", () => {
  test("a module's path: refused with how to pass the module, and no store opened", () => {
    const { printed, storeCreated } = runWithTask(JSON.stringify(path.join(folder, "task.mjs")));
    const thrown = JSON.parse(printed) as { name: string; message: string };
    assert.equal(thrown.name, "ExperimentSetupError");
    assert.equal(thrown.message, `task: must be a function (evalCase, context) => answer, not a text (${JSON.stringify(path.join(folder, "task.mjs"))}); import the module and pass its default export (\`task: (await import(path)).default\`; a path is what \`ragscope eval --task\` takes)`);
    assert.equal(storeCreated, false, "refused before the collector or its store started");
  });

  test("no task at all: refused the same way", () => {
    const thrown = JSON.parse(runWithTask("undefined").printed) as { name: string; message: string };
    assert.equal(thrown.name, "ExperimentSetupError");
    assert.equal(thrown.message, "task: must be a function (evalCase, context) => answer, not missing; pass the function that answers a case");
  });
});
