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
 * must be runs of their own). The comparison, the case table and the scores
 * read repeat 1; the release gate is checked on every repeat, and the worst
 * repeat decides: a gate that passed on repeat 1 while repeat 2 failed a rule
 * is a gate the system passes only sometimes, which is not a pass.
 *
 * A run id names one run. Stored rows of an earlier run under the same id
 * would mix into this one (a case's Case Result is replaced, but evaluations
 * the new run does not produce again — a root cause — stay, and the cases a
 * subset did not run stay whole), so an id that already holds results, and a
 * baseline that holds none or is the run itself, are refused before any case
 * runs. Without `runId` each run gets a fresh one (defaultRunId).
 *
 * Stopping: once `stop` is aborted no case starts; the running ones finish
 * (each within `timeoutMs`), are evaluated and stored, and the run's lineage
 * is recorded as interrupted with its planned and stored cases
 * (experiments/run-completion.ts) — recorded as "running" before the first
 * case, so an eval killed outright leaves a run that says it did not finish.
 */
import { caseGoldEvidence } from "../evaluators/evidence/case-gold-evidence.js";
import { setupRagscope } from "../instrumentation/setup.js";
import type { EvalCase } from "../contracts/eval-case.js";
import { identifierProblem } from "../contracts/identifiers.js";
import type { GateRule, ScoreWeights } from "../contracts/gate-file.js";
import type { RunLineage } from "../contracts/run-lineage.js";
import { describeUnpairedCases, pairCases, type EvaluatedCase } from "../evaluators/aggregate/index.js";
import { checkReleaseGate, formatErrorCounts, type ReleaseGateResult } from "../evaluators/gates/release-gate.js";
import { gateDecision, repeatRunId, worstDecision, type GateDecision } from "../evaluators/gates/gate-decision.js";
import { vetoedCases } from "../evaluators/gates/veto-cases.js";
import { judgeMostlyFailed, summarizeJudgeCalls, type JudgeCallSummary } from "../evaluators/judge/judge-evaluations.js";
import { reportInvalidSettings, settingsForCommand } from "../collector/wiring/cli/command-settings.js";
import { readGateFile } from "../dashboards/source/read-gate-file.js";
import { packageFiles } from "../collector/wiring/config/package-files.js";
import { describeLoadFailure, loadDatasetFile, type Dataset } from "../collector/wiring/dataset/load-dataset.js";
import { loadCorpusIndex, type CorpusIndex } from "../collector/wiring/dataset/load-corpus-index.js";
import { splitOf } from "../collector/wiring/dataset/dataset-mix.js";
import { compareRuns, type RunComparison } from "./compare/compare-runs.js";
import { answerConsistency, type CaseConsistency } from "./answer-consistency.js";
import { endToEndScores, type EndToEndScores } from "./end-to-end-scores.js";
import { buildLineage, gitCommit, lineageFromEnvironment, type LineageValues } from "./lineage.js";
import { runCase, type CaseRun } from "./run-case.js";
import { describeTenantCounts, isMixed, mixedBaselineProblem } from "./run-tenants.js";
import { runPool } from "./run-pool.js";
import type { ExperimentTask } from "./task.js";
import { caseKey, listCases, type CollectorTarget, type MissingCases, type StoredRun } from "./target/collector-target.js";
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
   * The corpus index (`ragscope eval --corpus`): a file of the knowledge base's document ids
   * (collector/wiring/dataset/load-corpus-index.ts) or one loaded. With it a failed case whose gold document is not
   * in it and was never retrieved has the root cause DATA_MISSING; without it, RETRIEVAL_MISS. Embedded collector
   * only: a running one (`endpoint`) evaluates the traces it receives, and this process cannot hand it the index.
   */
  corpus?: string | CorpusIndex;
  /**
   * Run as this tenant (embedded collector only): every request is recorded
   * under it, and the run and the baseline are read back through the store
   * restricted to it — another tenant's run reads as not stored. Cases whose
   * context names another tenant are refused before anything runs.
   */
  tenant?: string;
  /**
   * Compare and gate against a baseline whose results carry several tenant values (any tenant's spans may name any
   * run id), all of them together; without it such a baseline is refused before any case runs (run-tenants.ts).
   */
  allTenants?: boolean;
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
  /** Called once the run ids are settled and free, before the first case. */
  onStart?: (start: { runId: string; runIds: readonly string[]; cases: number }) => void;
  /**
   * Aborted: no further case starts, the running ones finish and the run ends interrupted (ExperimentResult.interruption).
   * The abort's reason, when a string, names what stopped it in the report (`ragscope eval`: the signal).
   */
  stop?: AbortSignal;
  now?: () => number;
}

/** A run stopped before all its cases ran (ExperimentOptions.stop). */
export interface ExperimentInterruption {
  /** What stopped it (e.g. SIGINT). */
  reason: string;
  /** Cases the run was to run, over every repeat. */
  plannedCases: number;
  /** Cases the task finished (answered, failed or timed out) before the run ended. */
  finishedCases: number;
  /** Their Case Results in the store, over every repeat. */
  storedCases: number;
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
  /** Null when the run was interrupted: a gate decides on a whole run. Repeat 1's gate, with `repeat` > 1. */
  gate: ReleaseGateResult | null;
  /** With `repeat` > 1 (and not interrupted): the gate of each further repeat, which decides as much as repeat 1's. */
  repeatGates: RepeatGate[];
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
  /** Null when every case ran. */
  interruption: ExperimentInterruption | null;
  /** Over every repeat (RepeatGate): the worst one decides. */
  decision: GateDecision;
  /** Why the decision is undecided, when it is. */
  problems: string[];
  /** What the reader should know that does not change the decision (e.g. lineage not stored remotely). */
  notes: string[];
  storedIn: string;
}

/** The release gate of repeat k > 1 (the run `runId.repeat-k`). */
export interface RepeatGate {
  repeat: number;
  runId: string;
  gate: ReleaseGateResult;
  /** That repeat's veto cases that did not pass. */
  vetoed: string[];
  decision: GateDecision;
}

export type { GateDecision };

export class ExperimentSetupError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join("; "));
  }
}

export async function runExperiment(options: ExperimentOptions): Promise<ExperimentResult> {
  // Checked before anything runs: from JavaScript, a task given as a module's path (as `dataset` and `gates` are
  // given) was called on every case, and the run stored and blocked a failed case per case ("task is not a function").
  if (typeof options.task !== "function") throw new ExperimentSetupError([taskProblem(options.task)]);
  const now = options.now ?? Date.now;
  const environment = options.environment ?? process.env;
  const dataset = typeof options.dataset === "string" ? await loadOrThrow(options.dataset) : options.dataset;
  const gate = await gateOrThrow(options.gates ?? packageFiles.gateFile);
  const scoreWeights = options.scoreWeights !== undefined ? options.scoreWeights : gate.scoreWeights;
  const cases = options.split === undefined ? dataset.cases : dataset.cases.filter((item) => splitOf(item) === options.split!.toLowerCase());
  if (cases.length === 0) {
    // Name the splits the file has, so a misspelled --split is one look away from the right one.
    const splits = [...new Set(dataset.cases.map(splitOf).filter((split): split is string => split !== null))].sort();
    const known = options.split === undefined ? "" : splits.length > 0 ? `; its splits: ${splits.join(", ")}` : "; its cases name no split (metadata.split or metadata.dataset_role)";
    throw new ExperimentSetupError([`${dataset.file}: no case${options.split ? ` in split "${options.split}"` : ""} to run${known}`]);
  }
  const first = cases[0]!;
  const repeat = options.repeat ?? 1;
  if (options.runId !== undefined) {
    // The collector refuses such a run id on every span: the cases would run and none of their results be found.
    const problem = identifierProblem(options.runId);
    if (problem !== null) throw new ExperimentSetupError([`--run-id "${options.runId}": ${problem}; the run id is sent on every span of the run, and the collector refuses such an id there`]);
  }
  let runId = options.runId ?? defaultRunId(first, now());
  let runIds = repeatRunIds(runId, repeat);
  if (options.baseline !== undefined && options.baseline === runId) {
    throw new ExperimentSetupError([`--baseline ${options.baseline}: that is this run's own id (--run-id); compare with an earlier run, which must have an id of its own`]);
  }

  const resolved = await settingsForCommand("eval", { environment, ...(options.configFile ? { configFile: options.configFile } : {}) }, {
    // A free port (no clash with a running collector); every case judged (sample rate 1) — a dataset is small and each case counts.
    // No OTLP/gRPC port: the task is handed the OTLP/HTTP endpoint (RAGSCOPE_ENDPOINT), and nothing else sends here.
    fixed: { "receiver.port": 0, "receiver.grpcPort": "off", "assembler.quietPeriodMs": 300, "judge.enabled": true, "sampling.defaultRate": 1, "embeddingsEndpoint.sampleRate": 1 },
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
  if (options.tenant !== undefined && options.allTenants === true) {
    throw new ExperimentSetupError(["--tenant and --all-tenants cannot be given together: --tenant reads that tenant's results only (the run's and the baseline's), --all-tenants compares with every tenant's results of --baseline together; give one"]);
  }
  if (options.corpus !== undefined && options.endpoint !== undefined) {
    throw new ExperimentSetupError([
      "--corpus applies to the embedded collector only: a running collector (--endpoint) decides the root causes of the traces it receives, and this process cannot hand it the corpus index — drop --endpoint to run embedded with --corpus, or drop --corpus (a gold document missing from the knowledge base then reads as RETRIEVAL_MISS)",
    ]);
  }
  const corpus = typeof options.corpus === "string" ? await corpusOrThrow(options.corpus) : (options.corpus ?? null);
  if (options.endpoint !== undefined && options.readApi === undefined) throw new ExperimentSetupError(["--endpoint needs --read-api: the address of the running collector's read API (serve prints it as \"web UI and read API on ...\"), where the results are read back"]);
  // Alone it was ignored: the run went to the embedded collector, and the results were read from there.
  if (options.readApi !== undefined && options.endpoint === undefined) throw new ExperimentSetupError(["--read-api needs --endpoint: the running collector's OTLP/HTTP receiver (serve prints it as \"OTLP/HTTP on ...\"), where the cases' spans are sent; without both, eval runs on the embedded collector"]);
  let target: CollectorTarget;
  try {
    target =
      options.endpoint !== undefined
        ? remoteTarget({ endpoint: options.endpoint, readApi: options.readApi!, ...(environment[READ_TOKEN_VARIABLE] ? { token: environment[READ_TOKEN_VARIABLE] } : {}) })
        : await startEmbeddedTarget(resolved.value.settings, options.tenant === undefined ? "all" : [options.tenant], corpus === null ? {} : { corpusDocumentIds: corpus.documentIds, corpusSource: `--corpus ${corpus.file}` });
  } catch (error) {
    if (error instanceof RemoteTargetError) throw new ExperimentSetupError([error.message]);
    throw error;
  }
  const storedIn = target.describe();
  try {
    // Before any case runs: the run's ids are free, and the baseline is there to compare with.
    const taken = await takenRunId(target, runIds);
    if (taken !== null && options.runId !== undefined) {
      throw new ExperimentSetupError([
        `--run-id ${options.runId}: run "${taken.runId}" already holds ${taken.stored.cases} stored case${taken.stored.cases === 1 ? "" : "s"} (${taken.stored.recorded ? "recorded" : "the newest started"} ${taken.stored.since ?? "at an unknown time"}) in ${storedIn}; a run id names one run, and a second run under it would mix with the first — choose another --run-id, or leave it out for a fresh one`,
      ]);
    }
    // A fresh id taken already (two runs of the dataset in one second): the next free one.
    for (let attempt = 2; (await takenRunId(target, runIds)) !== null; attempt += 1) {
      runId = `${defaultRunId(first, now())}-${attempt}`;
      runIds = repeatRunIds(runId, repeat);
    }
    const baselineRun = options.baseline === undefined ? null : await target.storedRun(options.baseline);
    if (options.baseline !== undefined && (baselineRun?.cases ?? 0) === 0) {
      throw new ExperimentSetupError([`--baseline ${options.baseline}: baseline run "${options.baseline}" has no stored results in ${storedIn}; give the id of a run stored there (ragscope eval prints it; the web UI lists them on /runs)`]);
    }
    // A baseline that holds part of its dataset would compare this run with some other set of cases.
    if (options.baseline !== undefined && baselineRun?.unfinished) throw new ExperimentSetupError([`--baseline ${options.baseline}: ${baselineRun.unfinished}`]);
    // Whose results the baseline holds, before any case runs: as the gate does, a baseline several tenants' results
    // carry is not compared with unless asked (--all-tenants); a reader of one tenant sees one value.
    const baselineTenants = options.baseline === undefined ? [] : await target.countRunTenants(options.baseline);
    const mixedBaseline = options.baseline === undefined || options.allTenants === true ? null : mixedBaselineProblem(options.baseline, baselineTenants, options.endpoint !== undefined);
    if (mixedBaseline !== null) throw new ExperimentSetupError([mixedBaseline]);
    const started = now();
    const startedAt = new Date(started).toISOString();
    const gitCommitOfRun = await gitCommit(options.workingDirectory ?? process.cwd());
    const lineageOf = (notes: string | null, completion: RunLineage["completion"], tracedModel?: string) =>
      buildLineage(
        { runId, datasetId: first.dataset_id, datasetVersion: first.dataset_version, startedAt, notes, completion },
        {
          options: options.lineage,
          environment: lineageFromEnvironment(environment),
          task: { ...(tracedModel ? { generator_model: tracedModel } : {}), ...options.taskLineage },
          gitCommit: gitCommitOfRun,
        },
      );
    // The cases first: a store that refuses them (another case under the same id and version) leaves no run behind.
    await target.putCases(cases, dataset.file);
    // Recorded before the first case: an eval killed outright leaves a run that says it did not finish.
    const running = lineageOf(null, { status: "running", planned_cases: cases.length, stored_cases: null });
    for (const id of runIds) await target.recordRun({ ...running, run_id: id });
    options.onStart?.({ runId, runIds, cases: cases.length });

    // The spans' clock, not the injected one: the target compares it with the requests' recorded start times.
    const sendingSince = Date.now();
    const ragscope = setupRagscope({ endpoint: target.receiverUrl, sampleRate: 1, flushOnExit: false, serviceName: environment.OTEL_SERVICE_NAME ?? "ragscope-eval" });
    const caseRuns: CaseRun[][] = [];
    let done = 0;
    let failed = 0;
    const total = cases.length * repeat;
    try {
      for (const [index, repeatRunId] of runIds.entries()) {
        if (options.stop?.aborted === true) break;
        caseRuns.push(
          await runPool(
            cases,
            options.concurrency ?? 4,
            async (evalCase) => {
              const run = await runCase(options.task, evalCase, { runId: repeatRunId, repeat: index + 1, timeoutMs: options.timeoutMs ?? 60_000, now, ...(options.tenant !== undefined ? { tenantId: options.tenant } : {}) });
              done += 1;
              if (run.error !== null) failed += 1;
              options.onProgress?.({ done, total, failed, elapsedMs: now() - started });
              return run;
            },
            options.stop,
          ),
        );
      }
      await ragscope.forceFlush();
    } finally {
      await ragscope.shutdown();
    }

    const interrupted = done < total;
    // The cases each run id ran: all of them, or (interrupted) those started before the stop.
    const ranOf = runIds.map((_, index) => {
      const ran = new Set((caseRuns[index] ?? []).map((run) => `${run.caseId}@${run.caseVersion}`));
      return cases.filter((item) => ran.has(caseKey(item)));
    });
    const timeoutMs = options.evaluationTimeoutMs ?? 120_000;
    const deadline = Date.now() + timeoutMs;
    const missingCases: MissingCases[] = [];
    for (const [index, id] of runIds.entries()) if (ranOf[index]!.length > 0) missingCases.push(...(await target.waitForCases([id], ranOf[index]!, deadline, sendingSince)));
    const missing = missingCases.reduce((sum, entry) => sum + entry.cases.length, 0);

    const selected = new Set(cases.map((item) => `${item.case_id}@${item.case_version}`));
    const load = async (id: string) => (await target.loadRunCases(id)).filter((evaluated) => selected.has(caseKey(evaluated.caseResult)));
    const evaluated = await load(runId);
    // Answer consistency compares every repeat of every case: not over a run that stopped part-way.
    const repeats = repeat > 1 && !interrupted ? await Promise.all(runIds.map(load)) : null;

    const evaluatorVersions = [...new Set(evaluated.flatMap((item) => item.evaluationResults.map((result) => `${result.evaluator_id}@${result.evaluator_version}`)))].sort();
    const tracedModel = evaluated.map((item) => item.caseResult.rag_observation.generation.model).find((model) => model !== null) ?? undefined;
    const notesOfRun = `evaluators: ${evaluatorVersions.join(", ") || "(none)"}; judge: ${target.judgeDescription}${repeat > 1 ? `; repeats: ${runIds.join(", ")}` : ""}`;
    const storedOf = await Promise.all(runIds.map(async (id) => (await target.storedRun(id))?.cases ?? 0));
    const completionOf = (index: number): RunLineage["completion"] => ({ status: interrupted ? "interrupted" : "complete", planned_cases: cases.length, stored_cases: storedOf[index]! });
    const lineage = lineageOf(notesOfRun, completionOf(0), tracedModel);
    const notes: string[] = [];
    // --all-tenants compared with a mix deliberately: the report says whose results it counted.
    if (options.baseline !== undefined && isMixed(baselineTenants)) notes.push(`--all-tenants: baseline run ${options.baseline} counted every tenant's results together: ${describeTenantCounts(baselineTenants)}`);
    if (corpus !== null) notes.push(corpusNote(corpus, cases));
    const unrecorded = new Set<string>();
    for (const [index, id] of runIds.entries()) {
      const refusal = await target.recordRun({ ...lineage, run_id: id, completion: completionOf(index) });
      if (refusal !== null) unrecorded.add(refusal);
    }
    for (const refusal of unrecorded) notes.push(`the run lineage is in this report and the JSON output only: ${refusal}`);

    const problems: string[] = [];
    const interruption: ExperimentInterruption | null = interrupted
      ? { reason: typeof options.stop?.reason === "string" ? options.stop.reason : "stopped", plannedCases: total, finishedCases: done, storedCases: storedOf.reduce((sum, count) => sum + count, 0) }
      : null;
    if (interruption !== null) {
      problems.push(
        `run ${runId} was interrupted (${interruption.reason}): ${interruption.finishedCases} of ${interruption.plannedCases} cases ran and ${interruption.storedCases} are stored, ${interruption.plannedCases - interruption.finishedCases} never started; the gate is not checked on part of a run, and its lineage says interrupted — run the dataset again under a new run id`,
      );
    }
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
    const gateResult = interrupted ? null : checkReleaseGate(gate.rules, { cases: evaluated, baseline: baselineCases && baselineCases.length > 0 ? baselineCases : null, scoreWeights }, { allowNotAvailable: options.allowMissing === true });
    const vetoed = vetoedCases(evaluated);
    const comparison = baselineCases && baselineCases.length > 0 ? compareRuns(evaluated, baselineCases, options.baseline!) : null;
    const unpaired = baselineCases && baselineCases.length > 0 ? describeUnpairedCases(pairCases(evaluated, baselineCases), options.baseline!) : null;
    if (unpaired !== null) notes.push(unpaired);
    const consistency = repeats ? answerConsistency(cases, caseRuns, repeats) : null;
    const judge = summarizeJudgeCalls(evaluated.flatMap((item) => item.evaluationResults));
    if (judgeMostlyFailed(judge)) problems.push(`${judge.errors} of ${judge.calls} judge calls failed (${formatErrorCounts(judge.errorsByType)}): the judge's verdicts are missing — check RAGSCOPE_JUDGE_BASE_URL, its key and model (ragscope config)`);
    // Every repeat is gated as repeat 1 is, against the same baseline: the worst of them decides.
    const repeatGates: RepeatGate[] = (repeats ?? []).slice(1).map((repeatCases, index) => {
      const repeatGate = checkReleaseGate(gate.rules, { cases: repeatCases, baseline: baselineCases && baselineCases.length > 0 ? baselineCases : null, scoreWeights }, { allowNotAvailable: options.allowMissing === true });
      const repeatVetoed = vetoedCases(repeatCases);
      return { repeat: index + 2, runId: runIds[index + 1]!, gate: repeatGate, vetoed: repeatVetoed, decision: gateDecision(repeatGate, repeatVetoed) };
    });
    const decision = problems.length > 0 || gateResult === null ? "undecided" : worstDecision([gateDecision(gateResult, vetoed), ...repeatGates.map((item) => item.decision)]);
    return { runId, runIds, dataset, cases, evaluated, caseRuns, lineage, gate: gateResult, repeatGates, judge, endToEnd: endToEndScores(evaluated, scoreWeights), vetoed, comparison, consistency, missing, interruption, decision, problems, notes, storedIn };
  } catch (error) {
    if (error instanceof RemoteTargetError) throw new ExperimentSetupError([...error.problems]);
    throw error;
  } finally {
    await target.close();
  }
}

/**
 * A run id of its own for a run given none: `eval-<dataset_id>-<dataset_version>-<UTC start, to the second>`, e.g.
 * eval-qa_toy-v1-20260708T093112Z (README "Evaluate your own pipeline"). One taken already gets -2, -3, …
 */
export function defaultRunId(first: Pick<EvalCase, "dataset_id" | "dataset_version">, nowMs: number): string {
  const time = new Date(nowMs).toISOString().replace(/\.\d+Z$/, "Z").replace(/[-:]/g, "");
  return `eval-${first.dataset_id}-${first.dataset_version}-${time}`;
}

/** A gate rule whose evaluations errored decides nothing: blocked only by a rule that failed or a veto case, else undecided. */
const repeatRunIds = (runId: string, repeat: number) => Array.from({ length: repeat }, (_, index) => repeatRunId(runId, index + 1));

/** The first of `runIds` the target already holds something of, with what it holds; null when all are free. */
async function takenRunId(target: CollectorTarget, runIds: readonly string[]): Promise<{ runId: string; stored: StoredRun } | null> {
  for (const runId of runIds) {
    const stored = await target.storedRun(runId);
    if (stored !== null) return { runId, stored };
  }
  return null;
}

/** The gate's rules and score weights: given rules as they are (the seed's weights), or a gate file read. */
async function gateOrThrow(gates: readonly GateRule[] | string): Promise<{ rules: readonly GateRule[]; scoreWeights: ScoreWeights | null }> {
  if (typeof gates !== "string") return { rules: gates, scoreWeights: null };
  const read = await readGateFile(gates);
  if (!read.ok) throw new ExperimentSetupError(read.error);
  return read.value;
}

function taskProblem(task: unknown): string {
  const kinds: Record<string, string> = { object: "an object", number: "a number", boolean: "true or false", undefined: "missing", bigint: "a number", symbol: "a symbol" };
  const given = typeof task === "string" ? `a text (${JSON.stringify(task)})` : task === null ? "null" : Array.isArray(task) ? "a list" : kinds[typeof task]!;
  const fix = typeof task === "string" ? "import the module and pass its default export (`task: (await import(path)).default`; a path is what `ragscope eval --task` takes)" : "pass the function that answers a case";
  return `task: must be a function (evalCase, context) => answer, not ${given}; ${fix}`;
}

async function corpusOrThrow(file: string): Promise<CorpusIndex> {
  const loaded = await loadCorpusIndex(file);
  if (!loaded.ok) throw new ExperimentSetupError(loaded.error);
  return loaded.value;
}

/**
 * What the corpus index says of the cases run: the gold documents it lacks, whose cases' failures read DATA_MISSING
 * when no chunk of them was retrieved. All of them lacking is said apart: most likely the file lists ids in another
 * form than the dataset's gold evidence (a path for a name, another prefix).
 */
function corpusNote(corpus: CorpusIndex, cases: readonly EvalCase[]): string {
  // Through caseGoldEvidence, as the root-cause procedure reads them: a case naming relevant documents only has them as its gold.
  const gold = new Set(cases.flatMap((item) => caseGoldEvidence(item).evidence.filter((evidence) => evidence.relevance >= 1).map((evidence) => evidence.document_id)));
  const absent = [...gold].filter((documentId) => !corpus.documentIds.has(documentId)).sort();
  const head = `--corpus ${corpus.file}: ${corpus.documentIds.size} document id(s)`;
  if (gold.size === 0) return `${head}; no case run names gold evidence, so none can be DATA_MISSING`;
  if (absent.length === 0) return `${head}; it holds every gold document of the cases run (${gold.size})`;
  const listed = `${absent.slice(0, 10).join(", ")}${absent.length > 10 ? ` and ${absent.length - 10} more` : ""}`;
  const warning = absent.length === gold.size ? " — none of them is in it: check that the file lists the ids the gold evidence's document_id uses" : "";
  return `${head}; ${absent.length} of the ${gold.size} gold documents of the cases run are not in it (${listed}): a failed case that retrieved none of its chunks has the root cause DATA_MISSING${warning}`;
}

async function loadOrThrow(file: string): Promise<Dataset> {
  const loaded = await loadDatasetFile(file);
  if (!loaded.ok) throw new ExperimentSetupError(describeLoadFailure(loaded.error, "the dataset is invalid"));
  return loaded.value;
}
