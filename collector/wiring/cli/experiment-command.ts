/**
 * `ragscope experiment report --id X`: the online A/B report of one
 * experiment from the configured store (the embedded engine by default, or
 * RAGSCOPE_CLICKHOUSE_URL): traffic, sample ratio check, every behaviour,
 * rule and judge metric per variant with its difference to the control,
 * interval and p-value, the lineage fields that differ, and a decision in
 * plain words (evaluators/experiments/experiment-report.ts). `--json` prints
 * the report as JSON instead.
 */
import { buildExperimentReport, type ExperimentUnit } from "../../../evaluators/experiments/experiment-report.js";
import { formatExperimentReport } from "../../../evaluators/experiments/format-experiment-report.js";
import { openClickHouseStore } from "../../../store/clickhouse/clickhouse-store.js";
import { ExitCode, type ExitCodeValue } from "./exit-codes.js";
import { reportInvalidSettings, settingsForCommand, type SettingsRequest } from "./command-settings.js";

type Output = { log: (line: string) => void; error: (line: string) => void };

export interface ExperimentReportCommandOptions {
  id: string;
  dataDir?: string;
  control?: string;
  unit?: string;
  alpha?: string;
  power?: string;
  mde?: string;
  method?: string;
  /** `variant=weight`, repeatable: the intended split (default equal). */
  weight?: string[];
  json?: boolean;
}

function fraction(text: string | undefined, flag: string, fallback: number): number | string {
  if (text === undefined) return fallback;
  const value = Number(text);
  return Number.isFinite(value) && value > 0 && value < 1 ? value : `${flag} takes a number between 0 and 1 (exclusive), got "${text}"`;
}

export async function experimentReportCommand(options: ExperimentReportCommandOptions, request: SettingsRequest, output: Output, now = Date.now()): Promise<ExitCodeValue> {
  const problems: string[] = [];
  const alpha = fraction(options.alpha, "--alpha", 0.05);
  const power = fraction(options.power, "--power", 0.8);
  const minimumEffect = fraction(options.mde, "--mde", 0.1);
  for (const value of [alpha, power, minimumEffect]) if (typeof value === "string") problems.push(value);
  const unit = options.unit ?? "user";
  if (unit !== "user" && unit !== "session") problems.push(`--unit takes "user" or "session", got "${unit}"`);
  const method = options.method ?? "analytic";
  if (method !== "analytic" && method !== "bootstrap") problems.push(`--method takes "analytic" or "bootstrap", got "${method}"`);
  const weights: Record<string, number> = {};
  for (const item of options.weight ?? []) {
    const match = /^([^=]+)=(\d+(?:\.\d+)?)$/.exec(item);
    if (match === null || Number(match[2]) <= 0) problems.push(`--weight takes variant=weight with a positive weight, e.g. --weight control=1 --weight treatment=1; got "${item}"`);
    else weights[match[1]!] = Number(match[2]);
  }
  if (options.id.trim() === "") problems.push("--id needs the experiment id (the requests' ragscope.experiment.id)");
  if (problems.length > 0) {
    for (const problem of problems) output.error(`ragscope experiment report: ${problem}`);
    return ExitCode.undecided;
  }
  const resolved = await settingsForCommand("experiment report", request, { flags: { "clickhouse.dataPath": { value: options.dataDir, flag: "--data-dir" } } });
  if (!resolved.ok) {
    reportInvalidSettings("experiment report", resolved.error, output);
    return ExitCode.undecided;
  }
  const store = await openClickHouseStore(resolved.value.settings.clickhouse);
  try {
    const data = await store.experiments.experiment(options.id);
    if (data.caseResults.length === 0) {
      const known = await store.experiments.experimentIds();
      output.error(`ragscope experiment report: no request of experiment "${options.id}" is stored in ${store.describe()}${known.length > 0 ? `; stored experiments: ${known.join(", ")}` : "; no request carries ragscope.experiment.id yet (set experimentId and experimentVariant in traceRequest)"}`);
      return ExitCode.undecided;
    }
    const report = buildExperimentReport(data.caseResults, data.metricValues, {
      experimentId: options.id,
      control: options.control,
      unit: unit as ExperimentUnit,
      alpha: alpha as number,
      power: power as number,
      minimumEffect: minimumEffect as number,
      method: method as "analytic" | "bootstrap",
      weights,
      now,
    });
    if (options.json) output.log(JSON.stringify(report, null, 2));
    else for (const line of formatExperimentReport(report)) output.log(line);
    return report.sampleRatio === null ? ExitCode.undecided : ExitCode.ok;
  } finally {
    await store.close();
  }
}
