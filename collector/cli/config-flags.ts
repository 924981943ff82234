/**
 * Adds the collector's configuration flags (collector/config: `configFlags`)
 * to a command and turns the values given into the overrides and flag names
 * `loadCollectorConfig` takes, so a bad flag is reported by the one schema,
 * naming the flag.
 */
import { Option, type Command } from "commander";
import { configFlags } from "../config/collector-config.js";

export interface FlagValues {
  overrides: Record<string, unknown>;
  flagNames: Record<string, string>;
}

/** Adds the flags whose config path starts with one of `sections` (e.g. "kafka", "receiver.port"). */
export function addConfigFlags(command: Command, sections: readonly string[]): Command {
  for (const entry of configFlags) {
    if (sections.some((section) => entry.path === section || entry.path.startsWith(`${section}.`))) command.addOption(new Option(entry.flag, entry.description));
  }
  return command;
}

export function flagValues(command: Command): FlagValues {
  const given = command.opts<Record<string, unknown>>();
  const overrides: Record<string, unknown> = {};
  const flagNames: Record<string, string> = {};
  for (const entry of configFlags) {
    const option = new Option(entry.flag);
    const value = given[option.attributeName()];
    if (value === undefined) continue;
    overrides[entry.path] = value;
    flagNames[entry.path] = option.long ?? entry.flag;
  }
  return { overrides, flagNames };
}
