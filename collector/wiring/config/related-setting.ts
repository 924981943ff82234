/**
 * A check that relates two settings names the other one in its message, with
 * where its value came from: a value given as `--session-timeout-ms` must not
 * be reported as if RAGSCOPE_KAFKA_SESSION_TIMEOUT_MS had set it, or the user
 * looks for a variable that is not set. The schema's checks do not know the
 * origins, so they leave a marker (`relatedOrigin`) that load-settings.ts,
 * which does, replaces with `describeRelatedOrigin`.
 */
import type { SettingOrigin } from "./load-settings.js";
import { variableOf } from "./setting-sources.js";

const MARKER = /\{origin of ([A-Za-z]+\.[A-Za-z]+)\}/g;

/** Where the value of the setting at `path` came from, filled in when the message is shown. */
export const relatedOrigin = (path: string): string => `{origin of ${path}}`;

/** "flag --session-timeout-ms", "environment variable …", "config file F, key kafka.sessionTimeoutMs", or the default and what sets it. */
export function describeRelatedOrigin(origin: SettingOrigin | undefined, path: string): string {
  if (origin === undefined || origin.kind === "default") {
    const variable = variableOf(path);
    return `the default${variable ? `; ${variable} sets it` : ""}`;
  }
  if (origin.kind === "flag") return `flag ${origin.flag}`;
  if (origin.kind === "environment") return `environment variable ${origin.variable}`;
  if (origin.kind === "file") return `config file ${origin.file}, key ${path}`;
  return `set by ragscope ${origin.command}`;
}

/** The message with each marker replaced by where that setting's value came from. */
export function withRelatedOrigins(message: string, origins: ReadonlyMap<string, SettingOrigin>): string {
  return message.replace(MARKER, (_marker, path: string) => describeRelatedOrigin(origins.get(path), path));
}
