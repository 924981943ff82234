/**
 * The effective settings as YAML, for `ragscope config`: every value with
 * where it came from (flag, environment variable, config file, default) as a
 * comment, and secrets masked — the ClickHouse password, receiver auth tokens,
 * the judge's API key, Slack webhook URLs, passwords inside URLs, and any
 * setting named like a token, key, secret or header. The keys are the config
 * file's keys, so the output (with secrets filled in) is a valid config file.
 */
import { Document, isCollection, isScalar, type Pair, type Scalar, type YAMLMap } from "yaml";
import type { ResolvedSettings, SettingOrigin } from "./load-settings.js";
import { secretSettings } from "./setting-sources.js";
import { sectionNames } from "./settings-schema.js";
import { redactUrl } from "../../../core/redact-url.js";
import { PER_PROCESS_SPENDING_LIMIT } from "../online/judge-config.js";

export const mask = "********";

/** Said beside a setting whose value alone would be read wrongly, e.g. as a limit for a whole group of replicas. */
const SETTING_NOTES: ReadonlyMap<string, string> = new Map([["judgeEndpoint.spendingLimitPerHour", PER_PROCESS_SPENDING_LIMIT]]);

/** Names that hold credentials whatever their section (future settings included). */
const secretName = /(password|token|tokens|secret|apikey|api_key|headers?)$/i;

function originLabel(origin: SettingOrigin | undefined): string {
  if (origin === undefined || origin.kind === "default") return "default";
  if (origin.kind === "flag") return `flag ${origin.flag}`;
  if (origin.kind === "environment") return `environment variable ${origin.variable}`;
  if (origin.kind === "file") return `config file ${origin.file}`;
  return `set by ragscope ${origin.command}`;
}

/** A URL's userinfo and secret-looking query values (api-key, token, sig, …) masked; other text unchanged. */
function maskUrlPassword(text: string): string {
  return redactUrl(text);
}

function maskValue(value: unknown, secret: boolean): unknown {
  if (Array.isArray(value)) return value.map((item) => maskValue(item, secret));
  if (typeof value === "object" && value !== null) return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, maskValue(inner, secret)]));
  if (typeof value !== "string") return value;
  if (secret) return value === "" ? "" : mask;
  return maskUrlPassword(value);
}

/** A Slack webhook URL is its own credential: the host stays, the path goes. */
function maskWebhook(value: string): string {
  try {
    return `${new URL(value).origin}/${mask}`;
  } catch {
    return mask;
  }
}

export function maskedSettings(resolved: ResolvedSettings): Record<string, Record<string, unknown>> {
  const shown: Record<string, Record<string, unknown>> = {};
  for (const section of sectionNames) {
    const fields: Record<string, unknown> = {};
    for (const [field, value] of Object.entries(resolved.settings[section] as Record<string, unknown>)) {
      const path = `${section}.${field}`;
      if (path === "alerts.slackWebhookUrls") fields[field] = (value as string[]).map(maskWebhook);
      else fields[field] = maskValue(value, secretSettings.has(path) || secretName.test(field));
    }
    shown[section] = fields;
  }
  return shown;
}

export function formatEffectiveSettings(resolved: ResolvedSettings): string {
  const document = new Document(maskedSettings(resolved));
  document.commentBefore =
    " The effective ragscope configuration. Precedence: flags > environment variables > config file > defaults.\n" +
    ` Each value is followed by where it came from; secrets are shown as ${mask}.`;
  for (const section of (document.contents as YAMLMap<Scalar<string>, YAMLMap>).items) {
    for (const pair of section.value!.items as Pair<Scalar<string>, unknown>[]) {
      const path = `${section.key.value}.${pair.key.value}`;
      const note = SETTING_NOTES.get(path);
      const label = ` ${originLabel(resolved.origins.get(path))}${note === undefined ? "" : `; ${note}`}`;
      const value = pair.value;
      if (isScalar(value)) value.comment = label;
      else if (isCollection(value) && value.items.length === 0) {
        value.flow = true;
        value.comment = label;
      } else pair.key.comment = label;
    }
  }
  return document.toString({ lineWidth: 0 });
}
