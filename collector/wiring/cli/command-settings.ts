/**
 * The command line's one place where settings are read: the config file
 * (`--config FILE`, else RAGSCOPE_CONFIG), the environment, the command's
 * own values and its flags go through the one schema (collector/wiring/config/load-settings.ts).
 * Commands then hand each component its typed slice; nothing past this point
 * reads the environment.
 */
import { failure, type Result } from "../../../core/result.js";
import { readConfigFile } from "../config/config-file.js";
import { resolveSettings, type ResolvedSettings, type SettingsSources } from "../config/load-settings.js";
import { configFileVariable } from "../config/setting-sources.js";

/** What the command line holds before settings are parsed. */
export interface SettingsRequest {
  /** `process.env`; absent: none (tests). */
  environment?: Readonly<Record<string, string | undefined>>;
  /** `--config FILE`. */
  configFile?: string;
}

export async function settingsForCommand(command: string, request: SettingsRequest, given: Pick<SettingsSources, "flags" | "fixed"> = {}): Promise<Result<ResolvedSettings, string[]>> {
  const environment = request.environment ?? {};
  const fileName = request.configFile ?? (environment[configFileVariable] || undefined);
  let file = null;
  if (fileName !== undefined) {
    const read = await readConfigFile(fileName);
    if (!read.ok) return failure(read.error);
    file = read.value;
  }
  return resolveSettings({ environment, file, command, ...given });
}

/** Prints the problems the way every command does, before exiting with 2. */
export function reportInvalidSettings(command: string, problems: readonly string[], output: { error: (line: string) => void }): void {
  output.error(`ragscope ${command}: the configuration is invalid`);
  for (const line of problems) output.error(`  ${line}`);
}
