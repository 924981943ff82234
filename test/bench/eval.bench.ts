/**
 * `ragscope eval` over 1,000 cases with a trivial task (it answers at once and
 * traces nothing of its own), as a user runs it: the compiled CLI in a new
 * process, the embedded collector, every case evaluated and read back from
 * the store. Compared with calling the same task directly 1,000 times, what is
 * left is ragscope's overhead: the request span and its export, receiving,
 * assembling, rebuilding, evaluating and storing each case, and reading the
 * run back.
 *
 * A run of 1 case measures the fixed cost (process start, engine start,
 * settings, the report); (time of 1,000 − time of 1) / 999 is the marginal
 * cost of one more case, and that minus the direct call is the overhead per case.
 */
import { spawnSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { BenchmarkResult } from "./benchmark.js";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const ragscope = path.join(projectRoot, "bin/ragscope.js");
const CASES = 1000;

const TRIVIAL_TASK = `export default async function trivialTask(evalCase) {\n  return "An answer to " + evalCase.input;\n}\n`;

async function writeDataset(file: string, count: number): Promise<void> {
  const cases = Array.from({ length: count }, (_, index) => ({ case_id: `case_${String(index).padStart(4, "0")}`, case_version: "1", input: `question number ${index}` }));
  await writeFile(file, JSON.stringify({ dataset_id: "bench", dataset_version: String(count), cases }));
}

function timeEval(folder: string, dataset: string, task: string, runId: string): number {
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, [ragscope, "eval", "--dataset", dataset, "--task", task, "--run-id", runId, "--data-dir", path.join(folder, `store-${runId}`), "--output", path.join(folder, `${runId}.json`)], {
    cwd: projectRoot,
    encoding: "utf8",
    env: { ...process.env, RAGSCOPE_CONFIG: "" },
    maxBuffer: 64 * 1024 * 1024,
  });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  // Exit 1 is the gate blocking (the default gate file's rules are not met by a trivial task); 2 would be a run that could not decide.
  if (result.status !== 0 && result.status !== 1) throw new Error(`ragscope eval exited with ${result.status}:\n${result.stderr}\n${result.stdout.slice(-2000)}`);
  if (!new RegExp(`Run ${runId}: `).test(result.stdout)) throw new Error(`ragscope eval printed no run summary:\n${result.stdout.slice(-2000)}`);
  return seconds;
}

export async function benchmark(): Promise<BenchmarkResult> {
  const folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-bench-eval-"));
  try {
    const task = path.join(folder, "trivial-task.mjs");
    await writeFile(task, TRIVIAL_TASK);
    const one = path.join(folder, "one.json");
    const many = path.join(folder, "many.json");
    await writeDataset(one, 1);
    await writeDataset(many, CASES);

    // The task called directly, the same number of times, awaited one after the other.
    const { default: trivialTask } = (await import(pathToFileURL(task).href)) as { default: (evalCase: { input: string }) => Promise<string> };
    const directStarted = process.hrtime.bigint();
    for (let index = 0; index < CASES; index += 1) await trivialTask({ input: `question number ${index}` });
    const directSeconds = Number(process.hrtime.bigint() - directStarted) / 1e9;

    const fixedSeconds = timeEval(folder, one, task, "one");
    const totalSeconds = timeEval(folder, many, task, "many");
    const marginalMs = ((totalSeconds - fixedSeconds) / (CASES - 1)) * 1000;
    const directMs = (directSeconds / CASES) * 1000;
    return {
      title: `ragscope eval over ${CASES.toLocaleString("en-US")} cases with a trivial task (embedded collector, default concurrency 4)`,
      figures: [
        { name: `wall time, ${CASES} cases (process start to exit)`, value: Math.round(totalSeconds * 100) / 100, unit: "s" },
        { name: "cases per second", value: Math.round((CASES / totalSeconds) * 10) / 10, unit: "cases/s" },
        { name: "wall time, 1 case (fixed cost: process, engine, settings, report)", value: Math.round(fixedSeconds * 100) / 100, unit: "s" },
        { name: "marginal time per case ((1000-case − 1-case) / 999)", value: Math.round(marginalMs * 1000) / 1000, unit: "ms" },
        { name: "task called directly, per case", value: Math.round(directMs * 10000) / 10000, unit: "ms" },
        { name: "overhead per case over the direct call (marginal − direct)", value: Math.round((marginalMs - directMs) * 1000) / 1000, unit: "ms" },
        { name: "overhead per case including the fixed cost ((1000-case wall − direct) / 1000)", value: Math.round(((totalSeconds - directSeconds) / CASES) * 1000 * 1000) / 1000, unit: "ms" },
      ],
    };
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}
