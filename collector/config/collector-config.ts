/**
 * The collector's configuration: one zod schema turns flags and `RAGSCOPE_*`
 * environment variables into a frozen typed object, once, at start. A bad value
 * fails there with a message naming the variable or flag and how to fix it.
 * Precedence: flags > environment > defaults.
 */
import path from "node:path";
import { z } from "zod";
import { failure, success, type Result } from "../../contracts/result.js";

const MEBIBYTE = 1024 * 1024;

const integer = (minimum: number) => z.coerce.number({ error: "must be a number" }).int("must be a whole number").min(minimum, `must be at least ${minimum}`);

export const collectorConfigSchema = z.object({
  receiver: z.object({
    host: z.string().min(1).default("127.0.0.1"),
    port: integer(0).max(65535, "must be a TCP port (0-65535)").default(4318),
    maxBodyBytes: integer(1024).default(64 * MEBIBYTE),
    authTokens: z.array(z.string().min(1)).default([]),
  }),
  clickhouse: z.object({
    url: z.url({ error: "must be a URL such as http://localhost:8123" }).nullable().default(null),
    username: z.string().default("default"),
    password: z.string().default(""),
    database: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be a plain identifier (letters, digits, underscores)").default("ragscope"),
    dataPath: z.string().min(1).default(path.resolve(".ragscope", "chdb")),
  }),
  assembler: z.object({
    quietPeriodMs: integer(0).default(2_000),
    maxTraceWaitMs: integer(1).default(60_000),
    maxOpenSpans: integer(1).default(200_000),
    recentTraceMemory: integer(0).default(2_000),
  }),
  queue: z.object({
    maxQueuedMessages: integer(1).default(10_000),
  }),
  sink: z.object({
    maxBatch: integer(1).default(500),
    retryInitialDelayMs: integer(1).default(200),
    retryMaxDelayMs: integer(1).default(10_000),
    retryDeadlineMs: integer(1).default(30_000),
  }),
});

export type CollectorConfig = z.infer<typeof collectorConfigSchema>;
export type CollectorConfigInput = z.input<typeof collectorConfigSchema>;

/** Environment variables and the config path each sets. */
export const environmentVariables: Record<string, string> = {
  RAGSCOPE_RECEIVER_HOST: "receiver.host",
  RAGSCOPE_RECEIVER_PORT: "receiver.port",
  RAGSCOPE_MAX_BODY_BYTES: "receiver.maxBodyBytes",
  RAGSCOPE_AUTH_TOKENS: "receiver.authTokens",
  RAGSCOPE_CLICKHOUSE_URL: "clickhouse.url",
  RAGSCOPE_CLICKHOUSE_USER: "clickhouse.username",
  RAGSCOPE_CLICKHOUSE_PASSWORD: "clickhouse.password",
  RAGSCOPE_CLICKHOUSE_DATABASE: "clickhouse.database",
  RAGSCOPE_DATA_DIR: "clickhouse.dataPath",
  RAGSCOPE_QUIET_PERIOD_MS: "assembler.quietPeriodMs",
  RAGSCOPE_TRACE_TIMEOUT_MS: "assembler.maxTraceWaitMs",
  RAGSCOPE_MAX_OPEN_SPANS: "assembler.maxOpenSpans",
  RAGSCOPE_MAX_QUEUED_MESSAGES: "queue.maxQueuedMessages",
  RAGSCOPE_SINK_BATCH: "sink.maxBatch",
};

const listVariables = new Set(["RAGSCOPE_AUTH_TOKENS"]);

function setPath(target: Record<string, unknown>, dotted: string, value: unknown): void {
  const [section, field] = dotted.split(".") as [string, string];
  const existing = (target[section] as Record<string, unknown> | undefined) ?? {};
  target[section] = { ...existing, [field]: value };
}

/**
 * @param overrides values from command-line flags, by config path (e.g. "receiver.port")
 * @param flagNames the flag that set each path, for error messages
 */
export function loadCollectorConfig(
  environment: NodeJS.ProcessEnv,
  overrides: Record<string, unknown> = {},
  flagNames: Record<string, string> = {},
): Result<Readonly<CollectorConfig>, string[]> {
  const raw: Record<string, unknown> = { receiver: {}, clickhouse: {}, assembler: {}, queue: {}, sink: {} };
  const sourceOf = new Map<string, string>();
  for (const [variable, dotted] of Object.entries(environmentVariables)) {
    const value = environment[variable];
    if (value === undefined || value === "") continue;
    setPath(raw, dotted, listVariables.has(variable) ? value.split(",").map((item) => item.trim()).filter(Boolean) : value);
    sourceOf.set(dotted, `environment variable ${variable}`);
  }
  for (const [dotted, value] of Object.entries(overrides)) {
    if (value === undefined) continue;
    setPath(raw, dotted, value);
    sourceOf.set(dotted, flagNames[dotted] ? `flag ${flagNames[dotted]}` : dotted);
  }
  const parsed = collectorConfigSchema.safeParse(raw);
  if (!parsed.success) {
    return failure(
      parsed.error.issues.map((issue) => {
        const dotted = issue.path.join(".");
        const variable = Object.entries(environmentVariables).find(([, target]) => target === dotted)?.[0];
        const where = sourceOf.get(dotted) ?? (variable ? `${dotted} (environment variable ${variable})` : dotted);
        return `${where}: ${issue.message}`;
      }),
    );
  }
  return success(Object.freeze(parsed.data));
}
