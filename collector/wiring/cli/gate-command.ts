/**
 * `ragscope gate --run ID --gates FILE [--baseline ID]`: the release gate.
 * Checks the stored results of a run against a gate file (the seed's §十三
 * format, contracts/gate-file.ts) and exits 0 when every rule passed, 1 when
 * a rule failed or its metric does not apply (unless --allow-missing), 2 when
 * the gate could not decide — no rule failed but a rule's evaluations errored
 * (a judge that is down: ERROR, never allowed by --allow-missing) — or the
 * gate file or the run cannot be read, or the run's eval was interrupted or
 * has not recorded its end (experiments/run-completion.ts) — so CI can block
 * a release on it.
 * `--tenant` reads the run as that tenant's reader would: only its cases
 * count, and another tenant's run reads as not stored.
 */
import { checkReleaseGate, GATE_RULE_SYMBOL, gateHeadline, IMPLIED_SECTION, type ReleaseGateResult } from "../../../evaluators/gates/release-gate.js";
import { derivedGateMetrics } from "../../../evaluators/gates/gate-metrics.js";
import { describeUnpairedCases, pairCases } from "../../../evaluators/aggregate/paired-cases.js";
import { packageFiles } from "../config/package-files.js";
import { openClickHouseStore } from "../../../store/clickhouse/clickhouse-store.js";
import { describeScope } from "../../../store/ports/tenant-scope.js";
import { formatFixed } from "../../../evaluators/format-fixed.js";
import { reportInvalidSettings, settingsForCommand, type SettingsRequest } from "./command-settings.js";
import { ExitCode } from "./exit-codes.js";
import { storeWithoutData } from "./existing-store.js";
import { readSchemaState } from "../../../store/clickhouse/run-migrations.js";
import { readGateFile } from "../../../dashboards/source/read-gate-file.js";
import { unfinishedRunProblem } from "../../../experiments/run-completion.js";

export const defaultGateFile = packageFiles.gateFile;

export interface GateOptions {
  run: string;
  gates: string;
  baseline?: string;
  allowMissing?: boolean;
  dataDir?: string;
  /** Only these tenants' cases (empty or absent: every tenant). */
  tenant?: string[];
}

type Output = { log: (line: string) => void; error: (line: string) => void };

export const GateExit = { passed: ExitCode.ok, failed: ExitCode.checkFailed, unusable: ExitCode.undecided } as const;

export async function gateCommand(options: GateOptions, request: SettingsRequest, output: Output): Promise<number> {
  const gate = await readGateFile(options.gates);
  if (!gate.ok) {
    for (const line of gate.error) output.error(line);
    return GateExit.unusable;
  }
  const resolved = await settingsForCommand("gate", request, { flags: { "clickhouse.dataPath": { value: options.dataDir, flag: "--data-dir" } } });
  if (!resolved.ok) {
    reportInvalidSettings("gate", resolved.error, output);
    return GateExit.unusable;
  }
  const clickhouse = resolved.value.settings.clickhouse;
  // A gate pointed at the wrong folder must not leave a new, empty store behind it, nor read one without a schema.
  const nothingStored = await storeWithoutData("gate", clickhouse, "no run");
  if (nothingStored !== null) {
    output.error(nothingStored);
    return GateExit.unusable;
  }
  // Read only: the gate leaves the schema to the processes that write.
  const store = await openClickHouseStore(clickhouse, { migrate: false });
  const scope = options.tenant !== undefined && options.tenant.length > 0 ? options.tenant : "all";
  const reader = store.scoped(scope).reader;
  try {
    const schema = await readSchemaState(store.connection);
    if (schema.kind === "behind") {
      output.error(`ragscope gate: ${behindProblem(schema.pending, store.describe())}`);
      return GateExit.unusable;
    }
    const cases = await reader.loadRunCases(options.run);
    // An eval stopped or killed part-way: its cases are not the dataset's, so there is no decision to make on them —
    // said before "no stored results", since an eval killed before its first case was stored holds none yet.
    const unfinished = unfinishedRunProblem(options.run, await reader.readRun(options.run), cases.length);
    if (unfinished !== null) {
      output.error(unfinished);
      return GateExit.unusable;
    }
    if (cases.length === 0) {
      output.error(`run "${options.run}" has no stored results${scope === "all" ? "" : ` of ${describeScope(scope)}`} in ${store.describe()}; check the run id (ragscope demo prints it) or --data-dir`);
      return GateExit.unusable;
    }
    const baseline = options.baseline ? await reader.loadRunCases(options.baseline) : null;
    if (options.baseline && baseline?.length === 0) {
      output.error(`baseline run "${options.baseline}" has no stored results`);
      return GateExit.unusable;
    }
    const result = checkReleaseGate(gate.value.rules, { cases, baseline, scoreWeights: gate.value.scoreWeights }, { allowNotAvailable: options.allowMissing === true });
    output.log(formatGate(options.run, cases.length, result, cases.map((evaluated) => evaluated.caseResult.quality_status), cases.filter((evaluated) => (evaluated.reviewedBy ?? []).length > 0).length));
    const unpaired = baseline === null ? null : describeUnpairedCases(pairCases(cases, baseline), options.baseline!);
    if (unpaired !== null) output.log(`  Note: ${unpaired}`);
    return result.passed ? GateExit.passed : result.undecided ? GateExit.unusable : GateExit.failed;
  } finally {
    await store.close();
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
  for (const item of result.rules) {
    const value = item.value === null ? "—" : Number.isInteger(item.value) ? String(item.value) : formatFixed(item.value, 4);
    const note = item.status === "not_available" || item.status === "error" || item.rule.section === IMPLIED_SECTION ? `  (${item.reason})` : derivedGateMetrics[item.rule.metric] ? `  (${derivedGateMetrics[item.rule.metric]!.description})` : "";
    lines.push(`  ${GATE_RULE_SYMBOL[item.status]}  ${`${item.rule.section}.${item.rule.metric}`.padEnd(40)} ${value.padStart(10)}  ${item.rule.threshold}${note}`);
  }
  return lines.join("\n");
}
