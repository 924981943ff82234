/**
 * `ragscope eval --dataset FILE --task MODULE`: runs the task over the dataset
 * through the embedded collector (experiments/run-experiment.ts), prints the
 * per-case table, the metrics by layer, the comparison and the gate decision,
 * and writes --output JSON and --junit XML. Exit codes as the gate's: 0
 * passed, 1 blocked, 2 could not decide; 130 interrupted.
 *
 * The run's id is printed on stderr before the first case (a fresh one
 * without --run-id: run-experiment.ts defaultRunId).
 *
 * --corpus FILE lists the knowledge base's document ids (load-corpus-index.ts):
 * a failed case whose gold document is not in it and was never retrieved then
 * has the root cause DATA_MISSING instead of RETRIEVAL_MISS.
 *
 * SIGINT or SIGTERM stops the run: no case starts after it, the running ones
 * finish (each within --timeout-ms), every finished case is evaluated and
 * stored, the lineage is recorded as interrupted with its planned and stored
 * cases, the report and the output files are written for what ran (marked
 * interrupted), and the exit code is 130. A second signal ends the process at
 * once, by that signal's default action: the run's lineage then still says
 * "running", and the gate does not decide on it either.
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describeUnwritableFile, writableFile } from "../../../core/file-access-problems.js";
import { loadTaskModule } from "../../../experiments/load-task-module.js";
import { isLineageField, type LineageValues } from "../../../experiments/lineage.js";
import { formatExperiment } from "../../../experiments/output/format-experiment.js";
import { junitReport } from "../../../experiments/output/experiment-junit.js";
import { resultsDocument } from "../../../experiments/output/results-json.js";
import { ExperimentSetupError, runExperiment, type ExperimentProgress, type ExperimentResult } from "../../../experiments/run-experiment.js";
import { StoredCaseConflictError } from "../../../store/ports/case-store.js";
import { describeStoredCaseConflicts } from "../dataset/stored-case-conflicts.js";
import type { SettingsRequest } from "./command-settings.js";
import { commandErrorLines } from "./command-error-lines.js";
import { GateExit } from "./gate-command.js";

export interface EvalOptions {
  dataset: string;
  task: string;
  runId?: string;
  repeat: number;
  concurrency: number;
  timeoutMs: number;
  baseline?: string;
  corpus?: string;
  tenant?: string;
  allTenants?: boolean;
  gates?: string;
  split?: string;
  output?: string;
  junit?: string;
  lineage: string[];
  allowMissing?: boolean;
  dataDir?: string;
  endpoint?: string;
  readApi?: string;
  evaluationTimeoutMs?: number;
}

type Output = { log: (line: string) => void; error: (line: string) => void };

/** The exit code of a run stopped by SIGINT or SIGTERM (128 + SIGINT, as a shell reports a command Ctrl-C stopped; README "Exit codes"). */
export const INTERRUPTED_EXIT = 130;

const STOP_SIGNALS = ["SIGINT", "SIGTERM"] as const;

export async function evalCommand(options: EvalOptions, request: SettingsRequest, output: Output, progressStream: NodeJS.WriteStream = process.stderr): Promise<number> {
  // Every refusal with the prefix the CLI's other errors carry (README "Exit codes"): exit 2, nothing run.
  const refuse = (lines: readonly string[]) => {
    for (const line of commandErrorLines("eval", lines)) output.error(line);
    return GateExit.unusable;
  };
  const lineage: LineageValues = {};
  for (const pair of options.lineage) {
    const [key, ...rest] = pair.split("=");
    if (key === undefined || !isLineageField(key) || rest.length === 0) {
      return refuse([`--lineage ${pair}: expected field=value with field one of corpus_version, index_version, embedding_model, retriever_version, reranker_version, prompt_version, generator_model, application_version`]);
    }
    lineage[key] = rest.join("=");
  }
  const task = await loadTaskModule(options.task);
  if (!task.ok) return refuse([task.error]);
  // Before any case runs: a run whose results cannot be written where asked is found out at its end otherwise.
  for (const [file, kind, example] of [[options.output, "results file (--output)", "results.json"], [options.junit, "JUnit file (--junit)", "junit.xml"]] as const) {
    if (file === undefined) continue;
    const writable = await writableFile(file, kind, example);
    if (!writable.ok) return refuse([writable.error]);
  }
  const stop = new AbortController();
  const onProgress = progressPrinter(progressStream, () => stop.signal.aborted);
  let runId: string | null = null;
  const onSignal = (signal: NodeJS.Signals) => {
    if (!stop.signal.aborted) {
      stop.abort(signal);
      output.error(`ragscope eval: ${signal}: stopping${runId ? ` run ${runId}` : ""} — no further case starts; the running ones finish (each within --timeout-ms), then every finished case is evaluated and stored and the run recorded as interrupted; ${signal} again ends at once`);
      return;
    }
    output.error(`ragscope eval: ${signal} again: ending now${runId ? `; run ${runId} keeps what is stored and its lineage says it did not finish` : ""}`);
    // The signal's default action, which runs no exit handlers: process.exit() would run the embedded engine's
    // destructors while its threads still work (collector-process.ts terminateNow).
    for (const name of STOP_SIGNALS) process.removeAllListeners(name);
    process.kill(process.pid, signal);
  };
  for (const name of STOP_SIGNALS) process.on(name, onSignal);
  let result: ExperimentResult;
  try {
    result = await runExperiment({
      dataset: options.dataset,
      task: task.value.task,
      taskLineage: task.value.lineage,
      lineage,
      repeat: options.repeat,
      concurrency: options.concurrency,
      timeoutMs: options.timeoutMs,
      ...(options.gates !== undefined ? { gates: options.gates } : {}),
      allowMissing: options.allowMissing === true,
      ...(options.runId ? { runId: options.runId } : {}),
      ...(options.baseline ? { baseline: options.baseline } : {}),
      ...(options.corpus !== undefined ? { corpus: options.corpus } : {}),
      ...(options.tenant !== undefined ? { tenant: options.tenant } : {}),
      ...(options.allTenants === true ? { allTenants: true } : {}),
      ...(options.split ? { split: options.split } : {}),
      ...(options.dataDir ? { dataDir: options.dataDir } : {}),
      ...(options.endpoint ? { endpoint: options.endpoint } : {}),
      ...(options.readApi ? { readApi: options.readApi } : {}),
      ...(options.evaluationTimeoutMs ? { evaluationTimeoutMs: options.evaluationTimeoutMs } : {}),
      ...(request.environment ? { environment: request.environment } : {}),
      ...(request.configFile ? { configFile: request.configFile } : {}),
      onProgress,
      onStart: (start) => {
        runId = start.runId;
        progressStream.write(`ragscope eval: run ${start.runId}${start.runIds.length > 1 ? ` (repeats ${start.runIds.slice(1).join(", ")})` : ""}, ${start.cases} case${start.cases === 1 ? "" : "s"}\n`);
      },
      stop: stop.signal,
    });
  } catch (error) {
    if (error instanceof ExperimentSetupError) return refuse(error.problems);
    if (error instanceof StoredCaseConflictError) return refuse(describeStoredCaseConflicts(options.dataset, error));
    throw error;
  } finally {
    for (const name of STOP_SIGNALS) process.off(name, onSignal);
    if (progressStream.isTTY) progressStream.write("\n");
  }
  for (const line of formatExperiment(result)) output.log(line);
  // The run is over and reported: a file that cannot be written is said, and the run's own decision is not lost to it.
  let unwritten = false;
  if (options.output) unwritten = !(await writeOutput("results file (--output)", options.output, `${JSON.stringify(resultsDocument(result), null, 2)}\n`, output)) || unwritten;
  if (options.junit) unwritten = !(await writeOutput("JUnit file (--junit)", options.junit, junitReport(result), output)) || unwritten;
  if (result.caseRuns.some((runs) => runs.some((run) => run.error?.type === "timeout"))) {
    // A task that hung past its timeout may still hold timers: the run is over, so the process ends once the output is written.
    setTimeout(() => process.exit(process.exitCode ?? 0), 500).unref();
  }
  if (result.interruption) return INTERRUPTED_EXIT;
  if (unwritten) return GateExit.unusable;
  return result.decision === "passed" ? GateExit.passed : result.decision === "blocked" ? GateExit.failed : GateExit.unusable;
}

/** Writes one output file, its folder made first; false, with the reason on stderr, when it cannot be written. */
async function writeOutput(kind: string, file: string, text: string, output: Output): Promise<boolean> {
  try {
    await mkdir(path.dirname(path.resolve(file)), { recursive: true });
    await writeFile(file, text);
    return true;
  } catch (error) {
    for (const line of commandErrorLines("eval", [`${describeUnwritableFile(file, error, kind)} (the run's results are above)`])) output.error(line);
    return false;
  }
}

/**
 * TTY: one line rewritten in place (done / total, task failures, ETA); otherwise plain lines, at most about twenty per run.
 * Once stopping, the cases left will not run: no ETA, and every case that still finishes is shown.
 */
function progressPrinter(stream: NodeJS.WriteStream, stopping: () => boolean): (progress: ExperimentProgress) => void {
  return (progress) => {
    const remaining = progress.done === 0 ? 0 : (progress.elapsedMs / progress.done) * (progress.total - progress.done);
    // Task errors (the task threw or timed out), counted as cases run: a case's verdict comes after evaluation, and
    // "1 failed" beside five failing cases read as a verdict count.
    const text = `cases ${progress.done}/${progress.total}, ${progress.failed} task failure${progress.failed === 1 ? "" : "s"}, ${stopping() ? "stopping: no further case starts" : `ETA ${Math.ceil(remaining / 1000)} s`}`;
    if (stream.isTTY) {
      stream.write(`\r${text}\u001b[K`);
      return;
    }
    const step = Math.max(1, Math.ceil(progress.total / 20));
    if (progress.done % step === 0 || progress.done === progress.total || stopping()) stream.write(`${text}\n`);
  };
}
