/**
 * `ragscope config [--config FILE] [flags]`: prints the effective settings as
 * YAML — each value with where it came from, secrets masked — and exits 0;
 * 2 when the settings are invalid (every problem listed, as at any start).
 */
import { formatEffectiveSettings } from "../config/describe-settings.js";
import { reportInvalidSettings, settingsForCommand, type SettingsRequest } from "./command-settings.js";
import type { FlagValues } from "./config-flags.js";
import { ExitCode } from "./exit-codes.js";

export async function configCommand(request: SettingsRequest, flags: FlagValues, output: { log: (line: string) => void; error: (line: string) => void }): Promise<number> {
  const resolved = await settingsForCommand("config", request, { flags });
  if (!resolved.ok) {
    reportInvalidSettings("config", resolved.error, output);
    return ExitCode.undecided;
  }
  output.log(formatEffectiveSettings(resolved.value).trimEnd());
  return ExitCode.ok;
}
