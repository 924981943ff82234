/**
 * Adds the settings' flags (collector/wiring/config/setting-sources.ts: `configFlags`)
 * and `--config FILE` to a command, and turns the values given into the flag
 * values `resolveSettings` takes, so a bad flag is reported by the one schema,
 * naming the flag.
 */
import { Option, type Command } from "commander";
import { configFlags } from "../config/setting-sources.js";
import type { SettingsSources } from "../config/load-settings.js";

export type FlagValues = NonNullable<SettingsSources["flags"]>;

export const configFileOption = () => new Option("--config <file>", "settings file, YAML or JSON, with the keys `ragscope config` prints (or RAGSCOPE_CONFIG); flags and environment variables win over it");

/** Adds the flags whose setting path starts with one of `sections` (e.g. "kafka", "receiver.port"). */
export function addConfigFlags(command: Command, sections: readonly string[]): Command {
  for (const entry of configFlags) {
    if (sections.some((section) => entry.path === section || entry.path.startsWith(`${section}.`))) command.addOption(new Option(entry.flag, entry.description));
  }
  return command;
}

export function flagValues(command: Command): FlagValues {
  const given = command.opts<Record<string, unknown>>();
  const values: Record<string, { value: unknown; flag: string }> = {};
  for (const entry of configFlags) {
    const option = new Option(entry.flag);
    const value = given[option.attributeName()];
    if (value === undefined) continue;
    values[entry.path] = { value, flag: option.long ?? entry.flag };
  }
  return values;
}
