/**
 * `runExperiment`: a user's task over a dataset through the real path — SDK
 * → OTLP/HTTP → collector (embedded in this process, or a running one given
 * by `endpoint` and `readApi`) → evaluators → store —
 * then the run's cases read back from the store, the release gate, veto
 * cases, the comparison with a baseline run and, with `repeat` > 1, answer
 * consistency.
 *
 * It knows when every case is evaluated: each case ends its request span
 * before the next step, the SDK's export is flushed, and the store (or the
 * running collector's read API) is polled until it holds one Case Result per
 * case and run — bounded by `evaluationTimeoutMs`, after which the cases still
 * missing are named and the decision is undecided (target/).
 *
 * Repeats: repeat 1 is the run `runId`; repeat k > 1 the run `runId.repeat-k`
 * (a Case Result's id derives from run, case and case version, so repeats
 * must be runs of their own). The gate and the comparison read repeat 1.
 */
import { setupRagscope } from "../instrumentation/setup.js";
import type { EvalCase } from "../contracts/eval-case.js";
import { identifierProblem } from "../contracts/identifiers.js";
import type { GateRule, ScoreWeights } from "../contracts/gate-file.js";
import type { RunLineage } from "../contracts/run-lineage.js";
import type { EvaluatedCase } from "../evaluators/aggregate/index.js";
import { checkReleaseGate, formatErrorCounts, type ReleaseGateResult } from "../evaluators/gates/release-gate.js";
import { judgeMostlyFailed, summarizeJudgeCalls, type JudgeCallSummary } from "../evaluators/judge/judge-evaluations.js";
import { reportInvalidSettings, settingsForCommand } from "../collector/wiring/cli/command-settings.js";
import { readGateFile } from "../dashboards/source/read-gate-file.js";
import { packageFiles } from "../collector/wiring/config/package-files.js";
import { loadDatasetFile, formatProblem, type Dataset } from "../collector/wiring/dataset/load-dataset.js";
import { splitOf } from "../collector/wiring/dataset/dataset-mix.js";
import { compareRuns, type RunComparison } from "./compare/compare-runs.js";
import { answerConsistency, type CaseConsistency } from "./answer-consistency.js";
import { endToEndScores, type EndToEndScores } from "./end-to-end-scores.js";
import { buildLineage, gitCommit, lineageFromEnvironment, type LineageValues } from "./lineage.js";
import { runCase, type CaseRun } from "./run-case.js";
import { runPool } from "./run-pool.js";
import type { ExperimentTask } from "./task.js";
import { caseKey, listCases, type CollectorTarget } from "./target/collector-target.js";
import { startEmbeddedTarget } from "./target/embedded-target.js";
import { READ_TOKEN_VARIABLE, RemoteTargetError, remoteTarget } from "./target/remote-target.js";

export interface ExperimentProgress {
  done: number;
  total: number;
  failed: number;
  /** Milliseconds since the first case started (injected clock). */
  elapsedMs: number;
}

export interface ExperimentOptions {
  /** A dataset file (YAML, JSON, JSON Lines; either case format) or a loaded dataset. */
  dataset: string | Dataset;
  task: ExperimentTask;
  runId?: string;
  /** Run lineage given by the caller (highest precedence; lineage.ts). */
  lineage?: LineageValues;
  /** Lineage the task module exports (below the environment). */
  taskLineage?: LineageValues;
  repeat?: number;
  concurrency?: number;
  /** Per case, per repeat. Default 60 000. */
  timeoutMs?: number;
  /** Only the cases of this split (metadata.split, else metadata.dataset_role). */
  split?: string;
  /** A run already in the store to compare with. */
  baseline?: string;
  /**
   * Run as this tenant (embedded collector only): every request is recorded
   * under it, and the run and the baseline are read back through the store
   * restricted to it — another tenant's run reads as not stored. Cases whose
   * context names another tenant are refused before anything runs.
   */
  tenant?: string;
  /**
   * The release gate: rules (contracts/gate-file.ts) or a gate file's path. Absent: the project's gate file, which
   * `ragscope eval` checks by default (dashboards/gates/ragscope-gates.yaml) — a run is never "passed" unchecked.
   */
  gates?: readonly GateRule[] | string;
  /** The overall score's weights; absent: the gate file's `score_weights` when `gates` is a file, else the seed's. */
  scoreWeights?: ScoreWeights | null;
  allowMissing?: boolean;
  /**
   * A running collector's OTLP/HTTP receiver (e.g. `ragscope serve`'s
   * http://127.0.0.1:4318) instead of the embedded one; needs `readApi`.
   */
  endpoint?: string;
  /** That collector's read API (serve's web UI address), where the results are read back. */
  readApi?: string;
  /** Embedded engine folder (else settings: RAGSCOPE_DATA_DIR, config file, default). */
  dataDir?: string;
  /** `process.env` by default. */
  environment?: Readonly<Record<string, string | undefined>>;
  configFile?: string;
  /** How long to wait for the evaluation after the last case. Default 120 000. */
  evaluationTimeoutMs?: number;
  /** Where git is asked for the commit. Default the working directory. */
  workingDirectory?: string;
  onProgress?: (progress: ExperimentProgress) => void;
  now?: () => number;
}

export interface ExperimentResult {
  runId: string;
  runIds: string[];
  dataset: Dataset;
  cases: readonly EvalCase[];
  /** Repeat 1's cases read back from the store, ordered by case id. */
  evaluated: EvaluatedCase[];
  /** Per repeat, per case: what the task did. */
  caseRuns: CaseRun[][];
  lineage: RunLineage;
  gate: ReleaseGateResult;
  /** The language-model judge's calls over repeat 1 and their grader errors by type. */
  judge: JudgeCallSummary;
  /** Seed §六 / §七: task success rate, weighted overall score with the hard thresholds, cost per successful task. */
  endToEnd: EndToEndScores;
  /** Veto cases (risk_level P0 or metadata.veto: true; the seed's 一票否决) whose verdict is not passed. */
  vetoed: string[];
  comparison: RunComparison | null;
  consistency: CaseConsistency[] | null;
  /** Cases whose Case Result did not reach the store before the evaluation timeout. */
  missing: number;
  decision: "passed" | "blocked" | "undecided";
  /** Why the decision is undecided, when it is. */
  problems: string[];
  /** What the reader should know that does not change the decision (e.g. lineage not stored remotely). */
  notes: string[];
  storedIn: string;
}

export class ExperimentSetupError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join("; "));
  }
}

const isVeto = (evaluated: EvaluatedCase) => evaluated.evalCase?.risk_level === "P0" || (evaluated.evalCase?.metadata as Record<string, unknown> | undefined)?.veto === true;

export async function runExperiment(options: ExperimentOptions): Promise<ExperimentResult> {
  const now = options.now ?? Date.now;
  const environment = options.environment ?? process.env;
  const dataset = typeof options.dataset === "string" ? await loadOrThrow(options.dataset) : options.dataset;
  const gate = await gateOrThrow(options.gates ?? packageFiles.gateFile);
  const scoreWeights = options.scoreWeights !== undefined ? options.scoreWeights : gate.scoreWeights;
  const cases = options.split === undefined ? dataset.cases : dataset.cases.filter((item) => splitOf(item) === options.split!.toLowerCase());
  if (cases.length === 0) throw new ExperimentSetupError([`${dataset.file}: no case${options.split ? ` in split "${options.split}"` : ""} to run`]);
  const first = cases[0]!;
  const runId = options.runId ?? `eval-${first.dataset_id}-${first.dataset_version}`;
  const repeat = options.repeat ?? 1;
  const runIds = Array.from({ length: repeat }, (_, index) => (index === 0 ? runId : `${runId}.repeat-${index + 1}`));

  const resolved = await settingsForCommand("eval", { environment, ...(options.configFile ? { configFile: options.configFile } : {}) }, {
    // A free port (no clash with a running collector); every case judged (sample rate 1) — a dataset is small and each case counts.
    fixed: { "receiver.port": 0, "assembler.quietPeriodMs": 300, "judge.enabled": true, "sampling.defaultRate": 1, "embeddingsEndpoint.sampleRate": 1 },
    flags: { "clickhouse.dataPath": { value: options.dataDir, flag: "--data-dir" } },
  });
  if (!resolved.ok) {
    const lines: string[] = [];
    reportInvalidSettings("eval", resolved.error, { error: (line) => lines.push(line) });
    throw new ExperimentSetupError(lines);
  }
  if (options.tenant !== undefined) {
    const problem = identifierProblem(options.tenant);
    if (problem !== null) throw new ExperimentSetupError([`--tenant "${options.tenant}": ${problem}`]);
    if (options.endpoint !== undefined) {
      throw new ExperimentSetupError([
        "--tenant applies to the embedded collector only: a running collector takes the tenant from the token it is sent with (RAGSCOPE_TENANT_TOKENS on its side) and its read API reads as the reader's token allows (RAGSCOPE_READ_API_TOKEN) — drop --tenant, or drop --endpoint to run embedded",
      ]);
    }
    const others = cases.filter((item) => typeof item.context.tenant_id === "string" && item.context.tenant_id !== options.tenant);
    if (others.length > 0) {
      throw new ExperimentSetupError([
        `--tenant ${options.tenant}: ${others.length} case(s) name another tenant in context.tenant_id (${listCases(others.map((item) => `${caseKey(item)} → ${String(item.context.tenant_id)}`))}); run them with that tenant's --tenant, or remove context.tenant_id from ${dataset.file}`,
      ]);
    }
  }
  if (options.endpoint !== undefined && options.readApi === undefined) throw new ExperimentSetupError(["--endpoint needs --read-api: the address of the running collector's read API (serve prints it as \"web UI and read API on ...\"), where the results are read back"]);
  let target: CollectorTarget;
  try {
    target =
      options.endpoint !== undefined
        ? remoteTarget({ endpoint: options.endpoint, readApi: options.readApi!, ...(environment[READ_TOKEN_VARIABLE] ? { token: environment[READ_TOKEN_VARIABLE] } : {}) })
        : await startEmbeddedTarget(resolved.value.settings, options.tenant === undefined ? "all" : [options.tenant]);
  } catch (error) {
    if (error instanceof RemoteTargetError) throw new ExperimentSetupError([error.message]);
    throw error;
  }
  const storedIn = target.describe();
  const started = now();
  const startedAt = new Date(started).toISOString();
  try {
    await target.putCases(cases);
    // The spans' clock, not the injected one: the target compares it with the requests' recorded start times.
    const sendingSince = Date.now();
    const ragscope = setupRagscope({ endpoint: target.receiverUrl, sampleRate: 1, flushOnExit: false, serviceName: environment.OTEL_SERVICE_NAME ?? "ragscope-eval" });
    const caseRuns: CaseRun[][] = [];
    let done = 0;
    let failed = 0;
    const total = cases.length * repeat;
    try {
      for (const [index, repeatRunId] of runIds.entries()) {
        caseRuns.push(
          await runPool(cases, options.concurrency ?? 4, async (evalCase) => {
            const run = await runCase(options.task, evalCase, { runId: repeatRunId, repeat: index + 1, timeoutMs: options.timeoutMs ?? 60_000, now, ...(options.tenant !== undefined ? { tenantId: options.tenant } : {}) });
            done += 1;
            if (run.error !== null) failed += 1;
            options.onProgress?.({ done, total, failed, elapsedMs: now() - started });
            return run;
          }),
        );
      }
      await ragscope.forceFlush();
    } finally {
      await ragscope.shutdown();
    }

    const timeoutMs = options.evaluationTimeoutMs ?? 120_000;
    const missingCases = await target.waitForCases(runIds, cases, Date.now() + timeoutMs, sendingSince);
    const missing = missingCases.reduce((sum, entry) => sum + entry.cases.length, 0);

    const selected = new Set(cases.map((item) => `${item.case_id}@${item.case_version}`));
    const load = async (id: string) => (await target.loadRunCases(id)).filter((evaluated) => selected.has(caseKey(evaluated.caseResult)));
    const evaluated = await load(runId);
    const repeats = repeat > 1 ? await Promise.all(runIds.map(load)) : null;

    const evaluatorVersions = [...new Set(evaluated.flatMap((item) => item.evaluationResults.map((result) => `${result.evaluator_id}@${result.evaluator_version}`)))].sort();
    const tracedModel = evaluated.map((item) => item.caseResult.rag_observation.generation.model).find((model) => model !== null) ?? undefined;
    const lineage = buildLineage(
      {
        runId,
        datasetId: first.dataset_id,
        datasetVersion: first.dataset_version,
        startedAt,
        notes: `evaluators: ${evaluatorVersions.join(", ") || "(none)"}; judge: ${target.judgeDescription}${repeat > 1 ? `; repeats: ${runIds.join(", ")}` : ""}`,
      },
      {
        options: options.lineage,
        environment: lineageFromEnvironment(environment),
        task: { ...(tracedModel ? { generator_model: tracedModel } : {}), ...options.taskLineage },
        gitCommit: await gitCommit(options.workingDirectory ?? process.cwd()),
      },
    );
    const notes: string[] = [];
    let recorded = true;
    for (const id of runIds) recorded = (await target.recordRun({ ...lineage, run_id: id })) && recorded;
    if (!recorded) notes.push(`the run lineage is in this report and the JSON output only: ${storedIn} has no write API for it`);

    const problems: string[] = [];
    for (const entry of missingCases) {
      problems.push(`run ${entry.runId}: ${entry.cases.length} case(s) not evaluated within ${timeoutMs} ms (--evaluation-timeout-ms) by ${storedIn}: ${listCases(entry.cases)}`);
    }
    const unfinished = target.unfinishedWork?.() ?? null;
    if (unfinished !== null) problems.push(`${unfinished} (${timeoutMs} ms after the last case, --evaluation-timeout-ms): judged metrics of some cases are missing from these results; raise --evaluation-timeout-ms (a CPU-only judge takes minutes per call)`);
    const withoutGold = evaluated.filter((item) => !item.evalCase).map((item) => caseKey(item.caseResult));
    if (withoutGold.length > 0) {
      problems.push(`${withoutGold.length} case(s) were evaluated without their Eval Case (${listCases(withoutGold)}): ${storedIn} does not hold them — restart it with --dataset ${dataset.file} (an embedded store is locked while its collector runs), or, when it stores into a ClickHouse server, run ragscope dataset push ${dataset.file} --clickhouse-url <its server>`);
    }
    let baselineCases: EvaluatedCase[] | null = null;
    if (options.baseline !== undefined) {
      baselineCases = await target.loadRunCases(options.baseline);
      if (baselineCases.length === 0) problems.push(`baseline run "${options.baseline}" has no stored results in ${storedIn}`);
    }
    const gateResult = checkReleaseGate(gate.rules, { cases: evaluated, baseline: baselineCases && baselineCases.length > 0 ? baselineCases : null, scoreWeights }, { allowNotAvailable: options.allowMissing === true });
    const vetoed = evaluated.filter((item) => isVeto(item) && item.caseResult.quality_status !== "passed").map((item) => item.caseResult.case_id);
    const comparison = baselineCases && baselineCases.length > 0 ? compareRuns(evaluated, baselineCases, options.baseline!) : null;
    const consistency = repeats ? answerConsistency(cases, caseRuns, repeats) : null;
    const judge = summarizeJudgeCalls(evaluated.flatMap((item) => item.evaluationResults));
    if (judgeMostlyFailed(judge)) problems.push(`${judge.errors} of ${judge.calls} judge calls failed (${formatErrorCounts(judge.errorsByType)}): the judge's verdicts are missing — check RAGSCOPE_JUDGE_BASE_URL, its key and model (ragscope config)`);
    // A gate rule whose evaluations errored decides nothing: blocked only by a rule that failed or a veto case, else undecided.
    const decision = problems.length > 0 ? "undecided" : gateResult.counts.failed > 0 || vetoed.length > 0 ? "blocked" : gateResult.undecided ? "undecided" : !gateResult.passed ? "blocked" : "passed";
    return { runId, runIds, dataset, cases, evaluated, caseRuns, lineage, gate: gateResult, judge, endToEnd: endToEndScores(evaluated, scoreWeights), vetoed, comparison, consistency, missing, decision, problems, notes, storedIn };
  } catch (error) {
    if (error instanceof RemoteTargetError) throw new ExperimentSetupError([error.message]);
    throw error;
  } finally {
    await target.close();
  }
}

/** The gate's rules and score weights: given rules as they are (the seed's weights), or a gate file read. */
async function gateOrThrow(gates: readonly GateRule[] | string): Promise<{ rules: readonly GateRule[]; scoreWeights: ScoreWeights | null }> {
  if (typeof gates !== "string") return { rules: gates, scoreWeights: null };
  const read = await readGateFile(gates);
  if (!read.ok) throw new ExperimentSetupError(read.error);
  return read.value;
}

async function loadOrThrow(file: string): Promise<Dataset> {
  const loaded = await loadDatasetFile(file);
  if (!loaded.ok) throw new ExperimentSetupError([`${file}: the dataset is invalid`, ...loaded.error.problems.map((problem) => `  ${formatProblem(problem)}`)]);
  return loaded.value;
}
