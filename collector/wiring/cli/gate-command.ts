/**
 * `ragscope gate --run ID --gates FILE [--baseline ID]`: the release gate.
 * Checks the stored results of a run against a gate file (the seed's §十三
 * format, contracts/gate-file.ts) and exits 0 when every rule passed, 1 when
 * a rule failed or its metric does not apply (unless --allow-missing) or a veto
 * case (P0) did not pass (evaluators/gates/veto-cases.ts), 2 when
 * the gate could not decide — no rule failed but a rule's evaluations errored
 * (a judge that is down: ERROR, never allowed by --allow-missing) — or the
 * gate file or the run cannot be read, or the run's eval was interrupted or
 * has not recorded its end (experiments/run-completion.ts) — so CI can block
 * a release on it.
 * `--tenant` reads the run as that tenant's reader would: only its cases
 * count, and another tenant's run reads as not stored.
 * Without --tenant the gate reads every tenant's results of the run id, and any
 * tenant's spans may name any run id: a run (or --baseline) whose results carry
 * more than one tenant value ('' included) — over the run and its repeats
 * (`<id>.repeat-k`) together, since every repeat decides — is not decided (exit 2,
 * experiments/run-tenants.ts) unless `--all-tenants` asks for every tenant's
 * results together. The lineage it reads is that of every tenant's record of
 * the run id (store/clickhouse/run-record-read-order.ts): another tenant's
 * record can stop it, never let it decide; --tenant reads the tenant's own.
 * `--junit FILE` writes the release gate suite `eval --junit` writes
 * (experiments/output/gate-junit-suite.ts) for every decision the gate
 * reaches and every problem with the run or store that stops it (exit 2, an
 * <error>): a blocked or undecided gate is never a file of passing tests. A
 * usage error (flags, the gate file, the settings) writes no file.
 */
import { checkReleaseGate, GATE_RULE_SYMBOL, gateHeadline, IMPLIED_SECTION, type GateRuleResult, type ReleaseGateResult } from "../../../evaluators/gates/release-gate.js";
import { describeRepeatDecisions, gateDecision, repeatRunId, worstDecision } from "../../../evaluators/gates/gate-decision.js";
import { derivedGateMetrics } from "../../../evaluators/gates/gate-metrics.js";
import { describeVetoedCases, vetoedCases } from "../../../evaluators/gates/veto-cases.js";
import { describeUnpairedCases, pairCases } from "../../../evaluators/aggregate/paired-cases.js";
import { packageFiles } from "../config/package-files.js";
import { openClickHouseStore } from "../../../store/clickhouse/clickhouse-store.js";
import { describeScope } from "../../../store/ports/tenant-scope.js";
import type { RunTenantCount } from "../../../store/ports/run-reader.js";
// A measured value keeps two significant digits where four decimals would write it as 0 (a cost of 0.00002), as eval and the report print it.
import { measuredNumber } from "../../../report/format-value.js";
import { reportInvalidSettings, settingsForCommand, type SettingsRequest } from "./command-settings.js";
import { ExitCode } from "./exit-codes.js";
import { commandErrorLines } from "./command-error-lines.js";
import { storeWithoutData } from "./existing-store.js";
import { readSchemaState } from "../../../store/clickhouse/run-migrations.js";
import { readGateFile } from "../../../dashboards/source/read-gate-file.js";
import { describeStoredRuns } from "../../../report/unmatched-filters.js";
import { unfinishedRunProblem } from "../../../experiments/run-completion.js";
import { describeRepeatTenantCounts, describeTenantCounts, isMixed, isMixedOverRepeats, mixedRepeatsProblem, mixedTenantsProblem, type RepeatTenantCounts } from "../../../experiments/run-tenants.js";
import { gateJunitReport } from "../../../experiments/output/experiment-junit.js";
import type { GateSuiteInput } from "../../../experiments/output/gate-junit-suite.js";
import { isVetoCase } from "../../../evaluators/gates/veto-cases.js";
import { describeUnwritableFile, writableFile } from "../../../core/file-access-problems.js";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";

export const defaultGateFile = packageFiles.gateFile;

export interface GateOptions {
  run: string;
  gates: string;
  baseline?: string;
  allowMissing?: boolean;
  dataDir?: string;
  /** Only these tenants' cases (empty or absent: every tenant). */
  tenant?: string[];
  /** Without --tenant: decide on a run (and baseline) whose results carry several tenants, all of them together. */
  allTenants?: boolean;
  /** Write the release gate suite as JUnit XML here. */
  junit?: string;
}

type Output = { log: (line: string) => void; error: (line: string) => void };

export const GateExit = { passed: ExitCode.ok, failed: ExitCode.checkFailed, unusable: ExitCode.undecided } as const;

export async function gateCommand(options: GateOptions, request: SettingsRequest, output: Output): Promise<number> {
  const tenantNamed = options.tenant !== undefined && options.tenant.length > 0;
  if (tenantNamed && options.allTenants === true) {
    output.error("ragscope gate: --tenant and --all-tenants cannot be given together: --tenant gates that tenant's results only, --all-tenants every tenant's together; give one");
    return GateExit.unusable;
  }
  // Before the store is read: a decision whose file cannot be written where asked is found out at its end otherwise.
  if (options.junit !== undefined) {
    const writable = await writableFile(options.junit, "JUnit file (--junit)", "junit.xml");
    if (!writable.ok) {
      for (const line of commandErrorLines("gate", [writable.error])) output.error(line);
      return GateExit.unusable;
    }
  }
  const gate = await readGateFile(options.gates);
  if (!gate.ok) {
    for (const line of commandErrorLines("gate", gate.error)) output.error(line);
    return GateExit.unusable;
  }
  const resolved = await settingsForCommand("gate", request, { flags: { "clickhouse.dataPath": { value: options.dataDir, flag: "--data-dir" } } });
  if (!resolved.ok) {
    reportInvalidSettings("gate", resolved.error, output);
    return GateExit.unusable;
  }
  const clickhouse = resolved.value.settings.clickhouse;
  // The JUnit file, when asked for, says what stopped or decided the gate; false when it could not be written (said on stderr).
  const junitWritten = async (input: GateSuiteInput, repeats: Parameters<typeof gateJunitReport>[2] = []) => options.junit === undefined || (await writeJunit(options.junit, gateJunitReport(input, new Date().toISOString(), repeats), output));
  // A problem with the run or the store: no decision, said on stderr and in the JUnit file as an <error>.
  const undecided = async (problem: string) => {
    output.error(`ragscope gate: ${problem}`);
    await junitWritten({ gate: null, vetoCases: 0, vetoed: [], problems: [problem] });
    return GateExit.unusable;
  };
  // A run compared with itself has no regression by construction: its regression rules would pass on nothing.
  if (options.baseline !== undefined && options.baseline === options.run) {
    return undecided(`--baseline ${options.baseline}: that is --run itself; a run compared with itself passes every regression rule on nothing — give an earlier run's id`);
  }
  // A gate pointed at the wrong folder must not leave a new, empty store behind it, nor read one without a schema.
  const nothingStored = await storeWithoutData("gate", clickhouse, "no run");
  if (nothingStored !== null) return undecided(nothingStored.replace(/^ragscope gate: /, ""));
  // Read only: the gate leaves the schema to the processes that write.
  const store = await openClickHouseStore(clickhouse, { migrate: false });
  const scope = tenantNamed ? options.tenant! : "all";
  const reader = store.scoped(scope).reader;
  try {
    const schema = await readSchemaState(store.connection);
    if (schema.kind === "behind") {
      return await undecided(behindProblem(schema.pending, store.describe()));
    }
    // Whose results the run id holds, before anything is decided on them: several tenants' together would decide on
    // a mix no one chose (a tenant's passing requests naming another tenant's run id diluted its failures).
    // Only the reader of every tenant can mix them: a --tenant reader counts its own tenants' results alone.
    const tenantsOf = async (runId: string | undefined) => (scope === "all" && runId !== undefined ? reader.countRunTenants(runId) : []);
    const tenantsOfRun = await tenantsOf(options.run);
    const tenantsOfBaseline = await tenantsOf(options.baseline);
    // Repeat k > 1 of an eval --repeat N run (<id>.repeat-k) decides with it, and any tenant's spans may name it too:
    // a repeat 2 another tenant's passing requests shared passed a run its own eval had blocked.
    const tenantsOfRepeats: RepeatTenantCounts[] = [{ repeat: 1, runId: options.run, counts: tenantsOfRun }];
    for (let repeat = 2; scope === "all"; repeat += 1) {
      const runId = repeatRunId(options.run, repeat);
      const counts = await tenantsOf(runId);
      if (counts.length === 0) break;
      tenantsOfRepeats.push({ repeat, runId, counts });
    }
    const hasRepeats = tenantsOfRepeats.length > 1;
    if (scope === "all" && options.allTenants !== true) {
      const runProblem = hasRepeats ? mixedRepeatsProblem(options.run, tenantsOfRepeats) : mixedTenantsProblem(options.run, "run", tenantsOfRun);
      const mixed = [runProblem, options.baseline ? mixedTenantsProblem(options.baseline, "baseline run", tenantsOfBaseline) : null].filter((problem) => problem !== null);
      if (mixed.length > 0) {
        for (const problem of mixed) output.error(`ragscope gate: ${problem}`);
        await junitWritten({ gate: null, vetoCases: 0, vetoed: [], problems: mixed });
        return GateExit.unusable;
      }
    }
    const cases = await reader.loadRunCases(options.run);
    // An eval stopped or killed part-way: its cases are not the dataset's, so there is no decision to make on them —
    // said before "no stored results", since an eval killed before its first case was stored holds none yet.
    const unfinished = unfinishedRunProblem(options.run, await reader.readRun(options.run), cases.length);
    // The reader of every tenant reads any tenant's record of a run id, the unfinished one first: the way past another
    // tenant's record is to name the run's tenant. Not said of an operator's run (results without a tenant), nor of
    // a run id with no results at all: there is no tenant to name.
    const anyTenantsRecord = (runId: string, counts: readonly RunTenantCount[]) =>
      scope === "all" && counts.length > 0 && counts.every((count) => count.tenant !== "") ? `read from any tenant's lineage of run id ${runId}; to gate one tenant's run on its own record, add --tenant NAME` : null;
    if (unfinished !== null) {
      const hint = anyTenantsRecord(options.run, tenantsOfRun);
      return await undecided(hint === null ? unfinished : `${unfinished} (${hint})`);
    }
    if (cases.length === 0) {
      return await undecided(`run "${options.run}" has no stored results${scope === "all" ? "" : ` of ${describeScope(scope)}`} in ${store.describe()}; check the run id (ragscope eval and ragscope demo print it) or --data-dir (${await describeStoredRuns(store.scoped(scope).traces)})`);
    }
    const baseline = options.baseline ? await reader.loadRunCases(options.baseline) : null;
    if (options.baseline && baseline?.length === 0) {
      return await undecided(`--baseline: baseline run "${options.baseline}" has no stored results${scope === "all" ? "" : ` of ${describeScope(scope)}`} in ${store.describe()}; give the id of a run stored there (${await describeStoredRuns(store.scoped(scope).traces)})`);
    }
    const checkRun = (runCases: typeof cases) => checkReleaseGate(gate.value.rules, { cases: runCases, baseline, scoreWeights: gate.value.scoreWeights }, { allowNotAvailable: options.allowMissing === true });
    const result = checkRun(cases);
    // An eval --repeat N run: repeat k > 1 is a run of its own, and the worst repeat decides, as eval decided it. Gating
    // repeat 1 alone passed a run whose eval had blocked it, without a word that other repeats existed.
    const repeats: { repeat: number; runId: string; cases: typeof cases }[] = [];
    for (let repeat = 2; ; repeat += 1) {
      const runId = repeatRunId(options.run, repeat);
      const repeatCases = await reader.loadRunCases(runId);
      const unfinishedRepeat = unfinishedRunProblem(runId, await reader.readRun(runId), repeatCases.length);
      if (unfinishedRepeat !== null) {
        // As for the run itself: another tenant's record of the repeat's id stops it, and --tenant reads the run's own.
        // A repeat with no results yet (an eval killed before its first case of it) is told by the run's own results.
        const repeatCounts = tenantsOfRepeats.find((item) => item.repeat === repeat)?.counts ?? [];
        const hint = anyTenantsRecord(runId, repeatCounts.length > 0 ? repeatCounts : tenantsOfRun);
        return await undecided(`${unfinishedRepeat} (repeat ${repeat} of run ${options.run}: every repeat decides${hint === null ? "" : `; ${hint}`})`);
      }
      if (repeatCases.length === 0) break;
      repeats.push({ repeat, runId, cases: repeatCases });
    }
    output.log(formatGate(repeats.length > 0 ? `${options.run} (repeat 1)` : options.run, cases.length, result, cases.map((evaluated) => evaluated.caseResult.quality_status), cases.filter((evaluated) => (evaluated.reviewedBy ?? []).length > 0).length));
    // --all-tenants decided on a mix deliberately: the decision says whose results it counted.
    if (scope === "all" && hasRepeats && isMixedOverRepeats(tenantsOfRepeats)) {
      output.log(`  Note: --all-tenants: run ${options.run} and its repeats counted every tenant's results together: ${describeRepeatTenantCounts(tenantsOfRepeats)}`);
    }
    for (const [runId, counts] of [[hasRepeats ? undefined : options.run, tenantsOfRun], [options.baseline, tenantsOfBaseline]] as const) {
      if (runId !== undefined && scope === "all" && isMixed(counts)) output.log(`  Note: --all-tenants: run ${runId} counted every tenant's results together: ${describeTenantCounts(counts)}`);
    }
    const unpaired = baseline === null ? null : describeUnpairedCases(pairCases(cases, baseline), options.baseline!);
    if (unpaired !== null) output.log(`  Note: ${unpaired}`);
    // A veto case that did not pass blocks whatever the rules say, as in ragscope eval (which decides the same run alike).
    const vetoed = vetoedCases(cases);
    // Under repeat 1's rules, as eval prints it, not after the other repeats'.
    if (vetoed.length > 0) output.log(describeVetoedCases(vetoed));
    const repeatDecisions = repeats.map(({ repeat, runId, cases: repeatCases }) => {
      const repeatGate = checkRun(repeatCases);
      const repeatVetoed = vetoedCases(repeatCases);
      // The rules this repeat did not pass; the ones it passed are repeat 1's list again (as eval prints them).
      output.log(`Release gate for run ${runId} (repeat ${repeat}, ${repeatCases.length} cases): ${gateHeadline(repeatGate)}`);
      for (const item of repeatGate.rules) if (item.status !== "passed") output.log(formatRuleLine(item));
      if (repeatVetoed.length > 0) output.log(describeVetoedCases(repeatVetoed));
      return { repeat, runId, gate: repeatGate, vetoed: repeatVetoed, vetoCases: repeatCases.filter(isVetoCase).length, decision: gateDecision(repeatGate, repeatVetoed) };
    });
    const decisions = [{ repeat: 1, decision: gateDecision(result, vetoed) }, ...repeatDecisions];
    const decision = worstDecision(decisions.map((item) => item.decision));
    if (repeats.length > 0) output.log(`Decision: ${decision.toUpperCase()}${describeRepeatDecisions(decisions)}`);
    else if (vetoed.length > 0) output.log("Decision: BLOCKED");
    const decided = decision === "blocked" ? GateExit.failed : decision === "undecided" ? GateExit.unusable : GateExit.passed;
    // The decision is printed above; a file that cannot be written is said, and is exit 2 (as eval's), never a pass.
    // Each further repeat a suite of its own, as eval writes them: a rule repeat 2 failed is a failure in the file.
    const repeatSuites = repeatDecisions.map((item) => ({ repeat: item.repeat, runId: item.runId, gate: item.gate, vetoCases: item.vetoCases, vetoed: item.vetoed, problems: [] }));
    if (!(await junitWritten({ gate: result, vetoCases: cases.filter(isVetoCase).length, vetoed, problems: [] }, repeatSuites))) return GateExit.unusable;
    return decided;
  } finally {
    await store.close();
  }
}

/** Writes the JUnit file, its folder made first; false, with the reason on stderr, when it cannot be written. */
async function writeJunit(file: string, text: string, output: Output): Promise<boolean> {
  try {
    await mkdir(path.dirname(path.resolve(file)), { recursive: true });
    await writeFile(file, text);
    return true;
  } catch (error) {
    for (const line of commandErrorLines("gate", [`${describeUnwritableFile(file, error, "JUnit file (--junit)")} (the gate's decision is above)`])) output.error(line);
    return false;
  }
}

/** A store an earlier release wrote: the gate only reads, so the migrations it lacks are the user's to apply. */
function behindProblem(pending: readonly string[], store: string): string {
  const shown = pending.slice(0, 3).join(", ") + (pending.length > 3 ? `, and ${pending.length - 3} more` : "");
  return `the ${store} was written by an earlier release: ${pending.length} schema migration${pending.length === 1 ? " is" : "s are"} not applied (${shown}); run \`ragscope migrate\` with the same settings (every collector also applies them when it starts), then the gate again`;
}

/** The case verdicts apart: a case nothing able to judge it judged is not a pass. A verdict human reviewers agreed on replaces the automatic one (evaluators/reviewed-verdict.ts). */
function formatVerdicts(statuses: readonly string[], reviewed: number): string {
  const count = (status: string) => statuses.filter((value) => value === status).length;
  return `Case verdicts: ${count("passed")} passed (judged), ${count("failed")} failed, ${count("review_required")} need review, ${count("unjudged")} unjudged, ${count("not_evaluated")} not evaluated; ${reviewed} decided by human review`;
}

function formatGate(runId: string, caseCount: number, result: ReleaseGateResult, statuses: readonly string[], reviewed: number): string {
  const lines = [`Release gate for run ${runId} (${caseCount} cases): ${gateHeadline(result)}`, `  ${formatVerdicts(statuses, reviewed)}`];
  for (const item of result.rules) lines.push(formatRuleLine(item));
  return lines.join("\n");
}

function formatRuleLine(item: GateRuleResult): string {
  const value = item.value === null ? "—" : measuredNumber(item.value);
  const note = item.status === "not_available" || item.status === "error" || item.rule.section === IMPLIED_SECTION ? `  (${item.reason})` : item.basis !== undefined ? `  (${item.basis})` : derivedGateMetrics[item.rule.metric] ? `  (${derivedGateMetrics[item.rule.metric]!.description})` : "";
  return `  ${GATE_RULE_SYMBOL[item.status]}  ${`${item.rule.section}.${item.rule.metric}`.padEnd(40)} ${value.padStart(10)}  ${item.rule.threshold}${note}`;
}
