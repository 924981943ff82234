/**
 * Configuration of online evaluation — sampling, the judge queue and workers,
 * alerts — parsed once at start into a frozen typed object, like the
 * collector's own configuration (collector/config/collector-config.ts): flags
 * over environment variables over defaults, and a bad value fails at start
 * with a message naming the variable and how to fix it.
 *
 * The judge endpoint itself (base URL, model, key, spending limit) is the
 * judge's configuration; this file decides what is judged and how fast.
 */
import { z } from "zod";
import { failure, success, type Result } from "../../core/result.js";

const rate = z.coerce.number({ error: "must be a number" }).min(0, "must be a rate between 0 and 1").max(1, "must be a rate between 0 and 1");
const integer = (minimum: number) => z.coerce.number({ error: "must be a number" }).int("must be a whole number").min(minimum, `must be at least ${minimum}`);
const rateTable = z.record(z.string().min(1), rate).default({});
const bool = z.union([z.boolean(), z.enum(["true", "false", "1", "0", "yes", "no"], { error: "must be true or false" }).transform((value) => ["true", "1", "yes"].includes(value))]);

export const onlineConfigSchema = z.object({
  sampling: z
    .object({
      /** Share of traces judged when no tenant, route or service rate applies. */
      defaultRate: rate.default(0.1),
      services: rateTable,
      routes: rateTable,
      tenants: rateTable,
    })
    .prefault({}),
  judge: z
    .object({
      /** Judge sampled traces at all. */
      enabled: bool.default(false),
      /** in_process: embedded; kafka: topic `topic`, consumer group `consumerGroup`. */
      queue: z.enum(["in_process", "kafka"], { error: "must be in_process or kafka" }).default("in_process"),
      topic: z.string().min(1).default("ragscope_judge_requests"),
      consumerGroup: z.string().min(1).default("ragscope-judges"),
      /** Traces judged at once by one worker. */
      concurrency: integer(1).default(4),
      /** Judge calls per second (token bucket refill) and burst. */
      ratePerSecond: z.coerce.number({ error: "must be a number" }).positive("must be more than 0").default(5),
      burst: integer(1).default(10),
      /** Requests per queue delivery. */
      batchSize: integer(1).default(16),
      /** In-process queue bound; beyond it sampled traces are counted as lost, the stream never waits. */
      maxQueued: integer(1).default(10_000),
      /** In-memory judge cache entries (the judge engineer's LRU cache). */
      cacheEntries: integer(1).default(10_000),
    })
    .prefault({}),
  alerts: z
    .object({
      /** A gate file in the seed's §十三 format (contracts/gate-file.ts); null: no alerts. */
      gateFile: z.string().min(1).nullable().default(null),
      /** Default window of rules that name none, e.g. 15m. */
      window: z.string().regex(/^[1-9]\d*(s|m|h|d)$/, "must be a duration such as 30s, 15m, 1h or 1d").default("15m"),
      /** Also cap each window at this many most recent samples; null: time only. */
      windowSamples: integer(2).nullable().default(null),
      minSamples: integer(2).default(20),
      confidence: z.coerce.number({ error: "must be a number" }).gt(0, "must be between 0 and 1, e.g. 0.95").lt(1, "must be between 0 and 1, e.g. 0.95").default(0.95),
      hysteresis: z.coerce.number({ error: "must be a number" }).min(0, "must be 0 or more").default(0.01),
      /** Generic JSON webhooks. */
      webhookUrls: z.array(z.url({ error: "must be a URL such as https://alerts.example.com/hook" })).default([]),
      /** Slack-compatible webhooks ({ text, blocks }). */
      slackWebhookUrls: z.array(z.url({ error: "must be a URL such as https://hooks.slack.com/services/…" })).default([]),
      /** Kafka topic for alert events (e.g. ragscope_alerts); null: none. Needs the collector's Kafka brokers. */
      kafkaTopic: z.string().min(1).nullable().default(null),
      /** Record transitions in the alerts table. */
      table: bool.default(true),
      /** Re-evaluate windows this often, ms. */
      evaluateEveryMs: integer(0).default(30_000),
    })
    .prefault({}),
});

export type OnlineConfig = z.infer<typeof onlineConfigSchema>;

/** Environment variables and the config path each sets. */
export const onlineEnvironmentVariables: Record<string, string> = {
  RAGSCOPE_SAMPLE_RATE: "sampling.defaultRate",
  RAGSCOPE_SAMPLE_RATES_BY_SERVICE: "sampling.services",
  RAGSCOPE_SAMPLE_RATES_BY_ROUTE: "sampling.routes",
  RAGSCOPE_SAMPLE_RATES_BY_TENANT: "sampling.tenants",
  RAGSCOPE_JUDGE_ENABLED: "judge.enabled",
  RAGSCOPE_JUDGE_QUEUE: "judge.queue",
  RAGSCOPE_JUDGE_TOPIC: "judge.topic",
  RAGSCOPE_JUDGE_CONSUMER_GROUP: "judge.consumerGroup",
  RAGSCOPE_JUDGE_CONCURRENCY: "judge.concurrency",
  RAGSCOPE_JUDGE_RATE_PER_SECOND: "judge.ratePerSecond",
  RAGSCOPE_JUDGE_BURST: "judge.burst",
  RAGSCOPE_JUDGE_BATCH: "judge.batchSize",
  RAGSCOPE_JUDGE_MAX_QUEUED: "judge.maxQueued",
  RAGSCOPE_JUDGE_CACHE_ENTRIES: "judge.cacheEntries",
  RAGSCOPE_ALERT_GATE_FILE: "alerts.gateFile",
  RAGSCOPE_ALERT_WINDOW: "alerts.window",
  RAGSCOPE_ALERT_WINDOW_SAMPLES: "alerts.windowSamples",
  RAGSCOPE_ALERT_MIN_SAMPLES: "alerts.minSamples",
  RAGSCOPE_ALERT_CONFIDENCE: "alerts.confidence",
  RAGSCOPE_ALERT_HYSTERESIS: "alerts.hysteresis",
  RAGSCOPE_ALERT_WEBHOOK_URLS: "alerts.webhookUrls",
  RAGSCOPE_ALERT_SLACK_WEBHOOK_URLS: "alerts.slackWebhookUrls",
  RAGSCOPE_ALERT_TOPIC: "alerts.kafkaTopic",
  RAGSCOPE_ALERT_TABLE: "alerts.table",
  RAGSCOPE_ALERT_EVALUATE_EVERY_MS: "alerts.evaluateEveryMs",
};

const listVariables = new Set(["RAGSCOPE_ALERT_WEBHOOK_URLS", "RAGSCOPE_ALERT_SLACK_WEBHOOK_URLS"]);
/** `name=rate` pairs separated by commas: "checkout=1,search=0.05". */
const tableVariables = new Set(["RAGSCOPE_SAMPLE_RATES_BY_SERVICE", "RAGSCOPE_SAMPLE_RATES_BY_ROUTE", "RAGSCOPE_SAMPLE_RATES_BY_TENANT"]);

function parseTable(value: string): Record<string, string> | string {
  const table: Record<string, string> = {};
  for (const pair of value.split(",").map((item) => item.trim()).filter(Boolean)) {
    const separator = pair.lastIndexOf("=");
    if (separator <= 0) return `"${pair}" is not name=rate; write pairs such as checkout=1,search=0.05`;
    table[pair.slice(0, separator).trim()] = pair.slice(separator + 1).trim();
  }
  return table;
}

function setPath(target: Record<string, Record<string, unknown>>, dotted: string, value: unknown): void {
  const [section, field] = dotted.split(".") as [string, string];
  target[section] = { ...(target[section] ?? {}), [field]: value };
}

/**
 * @param overrides values from command-line flags, by config path (e.g. "sampling.defaultRate")
 * @param flagNames the flag that set each path, for error messages
 */
export function loadOnlineConfig(environment: NodeJS.ProcessEnv, overrides: Record<string, unknown> = {}, flagNames: Record<string, string> = {}): Result<Readonly<OnlineConfig>, string[]> {
  const raw: Record<string, Record<string, unknown>> = { sampling: {}, judge: {}, alerts: {} };
  const sourceOf = new Map<string, string>();
  const problems: string[] = [];
  for (const [variable, dotted] of Object.entries(onlineEnvironmentVariables)) {
    const value = environment[variable];
    if (value === undefined || value === "") continue;
    sourceOf.set(dotted, `environment variable ${variable}`);
    if (listVariables.has(variable)) setPath(raw, dotted, value.split(",").map((item) => item.trim()).filter(Boolean));
    else if (tableVariables.has(variable)) {
      const table = parseTable(value);
      if (typeof table === "string") problems.push(`environment variable ${variable}: ${table}`);
      else setPath(raw, dotted, table);
    } else setPath(raw, dotted, value);
  }
  for (const [dotted, value] of Object.entries(overrides)) {
    if (value === undefined) continue;
    setPath(raw, dotted, value);
    sourceOf.set(dotted, flagNames[dotted] ? `flag ${flagNames[dotted]}` : dotted);
  }
  if (problems.length > 0) return failure(problems);
  const parsed = onlineConfigSchema.safeParse(raw);
  if (!parsed.success) {
    return failure(
      parsed.error.issues.map((issue) => {
        const dotted = issue.path.slice(0, 2).join(".");
        const variable = Object.entries(onlineEnvironmentVariables).find(([, target]) => target === dotted)?.[0];
        const where = sourceOf.get(dotted) ?? (variable ? `${issue.path.join(".")} (environment variable ${variable})` : issue.path.join("."));
        return `${where}: ${issue.message}`;
      }),
    );
  }
  return success(Object.freeze(parsed.data));
}
