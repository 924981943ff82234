/**
 * One computation of an experiment's report for every surface: the CLI
 * (`ragscope experiment report`), the web UI's Experiments page and its JSON
 * read API. The options arrive as text (command-line flags or query
 * parameters) and are checked here, with the same messages, so a page and a
 * command given the same settings show the same numbers.
 */
import { PLAIN_DECIMAL_FORM, readPlainDecimal } from "../../core/decimal-number.js";
import { failure, success, type Result } from "../../core/result.js";
import type { ExperimentReader } from "../../store/ports/experiment-reader.js";
import { buildExperimentReport, type ExperimentReport, type ExperimentReportOptions, type ExperimentUnit } from "./experiment-report.js";

/** The report's settings as given by a person: every value text, unset when not given. */
export interface ExperimentReportSettingsText {
  readonly control?: string;
  readonly unit?: string;
  readonly alpha?: string;
  readonly power?: string;
  /** The relative change worth detecting (fraction of the control's value). */
  readonly mde?: string;
  readonly method?: string;
  /** `variant=weight` each: the intended split (default equal). */
  readonly weight?: readonly string[];
}

export type ExperimentReportSettings = Omit<ExperimentReportOptions, "experimentId" | "now" | "windows">;

export const DEFAULT_ALPHA = 0.05;
export const DEFAULT_POWER = 0.8;
export const DEFAULT_MINIMUM_EFFECT = 0.1;

/**
 * A level, a power or a relative change strictly between 0 and 1, in plain decimal (core/decimal-number.ts). `Number`
 * also read --alpha 1e-2, 0x0 and "" (as 0, refused only by the range): a form no flag or field documents. Unset (the
 * page's blank field) is the default; a flag given as "" is not.
 */
function fraction(text: string | undefined, name: string, fallback: number): number | string {
  if (text === undefined) return fallback;
  const value = readPlainDecimal(text);
  if (value === null) return `${name} takes a number between 0 and 1 (exclusive) in ${PLAIN_DECIMAL_FORM}, got "${text}"`;
  return value > 0 && value < 1 ? value : `${name} takes a number between 0 and 1 (exclusive), got "${text}"`;
}

/** The settings, or every problem found (`names` says how the caller calls each setting: "--alpha" or "alpha"). */
export function parseExperimentReportSettings(text: ExperimentReportSettingsText, names: (setting: string) => string): Result<ExperimentReportSettings, string[]> {
  const problems: string[] = [];
  const alpha = fraction(text.alpha, names("alpha"), DEFAULT_ALPHA);
  const power = fraction(text.power, names("power"), DEFAULT_POWER);
  const minimumEffect = fraction(text.mde, names("mde"), DEFAULT_MINIMUM_EFFECT);
  for (const value of [alpha, power, minimumEffect]) if (typeof value === "string") problems.push(value);
  const unit = text.unit === undefined || text.unit === "" ? "user" : text.unit;
  if (unit !== "user" && unit !== "session") problems.push(`${names("unit")} takes "user" or "session", got "${unit}"`);
  const method = text.method === undefined || text.method === "" ? "analytic" : text.method;
  if (method !== "analytic" && method !== "bootstrap") problems.push(`${names("method")} takes "analytic" or "bootstrap", got "${method}"`);
  const weights: Record<string, number> = {};
  for (const item of text.weight ?? []) {
    const match = /^([^=]+)=(\d+(?:\.\d+)?)$/.exec(item);
    if (match === null || Number(match[2]) <= 0) problems.push(`${names("weight")} takes variant=weight with a positive weight, e.g. control=1 and treatment=1; got "${item}"`);
    else weights[match[1]!] = Number(match[2]);
  }
  if (problems.length > 0) return failure(problems);
  return success({
    control: text.control === undefined || text.control === "" ? undefined : text.control,
    unit: unit as ExperimentUnit,
    alpha: alpha as number,
    power: power as number,
    minimumEffect: minimumEffect as number,
    method: method as "analytic" | "bootstrap",
    weights,
  });
}

export interface NoExperiment {
  readonly experimentId: string;
  /** The experiments this reader does see, most requests first. */
  readonly known: string[];
}

/** The report of one experiment from what `experiments` may read; no request of it stored (or readable) is a failure, with the ids that are. */
export async function readExperimentReport(experiments: ExperimentReader, experimentId: string, settings: ExperimentReportSettings, now: number): Promise<Result<ExperimentReport, NoExperiment>> {
  const data = await experiments.experiment(experimentId);
  if (data.caseResults.length === 0) return failure({ experimentId, known: await experiments.experimentIds() });
  return success(buildExperimentReport(data.caseResults, data.metricValues, { ...settings, experimentId, now }));
}

export function describeNoExperiment(missing: NoExperiment, where: string): string {
  return `no request of experiment "${missing.experimentId}" is stored in ${where}${missing.known.length > 0 ? `; stored experiments: ${missing.known.join(", ")}` : "; no request carries ragscope.experiment.id yet (set experimentId and experimentVariant in traceRequest)"}`;
}
