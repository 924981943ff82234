/**
 * `ragscope config [--config FILE] [flags]`: prints the effective settings as
 * YAML — each value with where it came from, secrets masked — and exits 0;
 * 2 when the settings are invalid (every problem listed, as at any start).
 * "Invalid" is what any role would refuse at start, not only what the schema
 * checks: the alert gate file a setting names is read and its rules checked,
 * the web UI's variables parsed and the listeners' ports compared, with the
 * same functions the roles start with, so config never passes what `serve`
 * then refuses.
 */
import { formatEffectiveSettings } from "../config/describe-settings.js";
import { collectorListeners, listenerClashes } from "../config/listener-clashes.js";
import { onlineSettings } from "../config/settings-schema.js";
import { loadAlertRules } from "../online/alert-rules-file.js";
import { reportInvalidSettings, settingsForCommand, type SettingsRequest } from "./command-settings.js";
import type { FlagValues } from "./config-flags.js";
import { ExitCode } from "./exit-codes.js";
import { readUiSettings } from "./ui-settings.js";

export async function configCommand(request: SettingsRequest, flags: FlagValues, output: { log: (line: string) => void; error: (line: string) => void }): Promise<number> {
  const resolved = await settingsForCommand("config", request, { flags });
  if (!resolved.ok) {
    reportInvalidSettings("config", resolved.error, output);
    return ExitCode.undecided;
  }
  const problems = listenerClashes("ragscope serve, receive or collect", collectorListeners(resolved.value.settings, resolved.value.origins, { receiver: true }));
  const uiSettings = readUiSettings(request.environment ?? {});
  if (!uiSettings.ok) problems.push(uiSettings.error);
  const alertRules = await loadAlertRules(onlineSettings(resolved.value.settings).alerts);
  if (!alertRules.ok) problems.push(...alertRules.error);
  if (problems.length > 0) {
    reportInvalidSettings("config", problems, output);
    return ExitCode.undecided;
  }
  output.log(formatEffectiveSettings(resolved.value).trimEnd());
  return ExitCode.ok;
}
