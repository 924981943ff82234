/**
 * `ragscope experiment report --id X`: the online A/B report of one
 * experiment from the configured store (the embedded engine by default, or
 * RAGSCOPE_CLICKHOUSE_URL): traffic, sample ratio check, every behaviour,
 * rule and judge metric per variant with its difference to the control,
 * interval and p-value, the lineage fields that differ, and a decision in
 * plain words (evaluators/experiments/experiment-report.ts). `--json` prints
 * the report as JSON instead. The UI's Experiments page computes the same
 * report through the same function (read-experiment-report.ts).
 * `--tenant` reads through the store restricted to those tenants, as the
 * UI's tenant tokens do: another tenant's requests are not counted, and an
 * experiment only another tenant ran reads as not stored.
 */
import { describeNoExperiment, parseExperimentReportSettings, readExperimentReport } from "../../../evaluators/experiments/read-experiment-report.js";
import { formatExperimentReport } from "../../../evaluators/experiments/format-experiment-report.js";
import { openClickHouseStore } from "../../../store/clickhouse/clickhouse-store.js";
import { storeWithoutData } from "./existing-store.js";
import { describeScope } from "../../../store/ports/tenant-scope.js";
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
  /** Only these tenants' requests (empty or absent: every tenant). */
  tenant?: string[];
  json?: boolean;
}

export async function experimentReportCommand(options: ExperimentReportCommandOptions, request: SettingsRequest, output: Output, now = Date.now()): Promise<ExitCodeValue> {
  const settings = parseExperimentReportSettings(options, (setting) => `--${setting}`);
  const problems = settings.ok ? [] : [...settings.error];
  if (options.id.trim() === "") problems.push("--id needs the experiment id (the requests' ragscope.experiment.id)");
  if (!settings.ok || problems.length > 0) {
    for (const problem of problems) output.error(`ragscope experiment report: ${problem}`);
    return ExitCode.undecided;
  }
  const resolved = await settingsForCommand("experiment report", request, { flags: { "clickhouse.dataPath": { value: options.dataDir, flag: "--data-dir" } } });
  if (!resolved.ok) {
    reportInvalidSettings("experiment report", resolved.error, output);
    return ExitCode.undecided;
  }
  // A mistyped --data-dir must not leave a new, empty store behind it and read as "no request stored".
  const nothingStored = await storeWithoutData("experiment report", resolved.value.settings.clickhouse, "no experiment");
  if (nothingStored !== null) {
    output.error(nothingStored);
    return ExitCode.undecided;
  }
  const store = await openClickHouseStore(resolved.value.settings.clickhouse);
  try {
    const tenants = options.tenant ?? [];
    const reader = tenants.length > 0 ? store.scoped(tenants).experiments : store.experiments;
    const read = await readExperimentReport(reader, options.id, settings.value, now);
    if (!read.ok) {
      output.error(`ragscope experiment report: ${describeNoExperiment(read.error, tenants.length > 0 ? `${store.describe()}, ${describeScope(tenants)} only` : store.describe())}`);
      return ExitCode.undecided;
    }
    const report = read.value;
    if (options.json) output.log(JSON.stringify(report, null, 2));
    else for (const line of formatExperimentReport(report)) output.log(line);
    return report.sampleRatio === null ? ExitCode.undecided : ExitCode.ok;
  } finally {
    await store.close();
  }
}
