/**
 * The online evaluation sections of the settings schema — sampling, the judge
 * queue and workers, alerts (collector/wiring/config/settings-schema.ts). The schema
 * is parsed once at the command line; the online stage receives this typed,
 * frozen slice.
 *
 * The judge endpoint itself (base URL, model, key, spending limit) is the
 * judge's configuration; this file decides what is judged and how fast, and
 * which embeddings endpoint (if any) measures embedding similarity beside the
 * judge (embeddings-config.ts).
 */
import { z } from "zod";
import { decimalSetting } from "../config/decimal-setting.js";
import { BOOLEAN_WORDS, parseBooleanWord } from "../../../core/boolean-words.js";
import { embeddingsEndpointSection } from "./embeddings-config.js";
import { wholeNumberSetting } from "../config/whole-number-setting.js";

const rate = decimalSetting(z.number().min(0, "must be a rate between 0 and 1").max(1, "must be a rate between 0 and 1"));
const integer = (minimum: number) => wholeNumberSetting({ minimum });
const rateTable = z.record(z.string().min(1), rate).default({});
/** A boolean setting: YAML's true/false, or one of the accepted words (core/boolean-words.ts) from a variable or a quoted value. */
const bool = z.unknown().transform((value, context) => {
  const parsed = typeof value === "boolean" ? value : typeof value === "string" ? parseBooleanWord(value) : null;
  if (parsed !== null) return parsed;
  context.addIssue({ code: "custom", message: `must be ${BOOLEAN_WORDS}, not ${JSON.stringify(value)}` });
  return z.NEVER;
});

/** The online sections of the settings schema. */
export const onlineSections = {
  sampling: z
    .strictObject({
      /** Share of traces judged when no tenant, route or service rate applies. */
      defaultRate: rate.default(0.1),
      services: rateTable,
      routes: rateTable,
      tenants: rateTable,
    })
    .prefault({}),
  judge: z
    .strictObject({
      /** Judge sampled traces at all. */
      enabled: bool.default(false),
      /** in_process: embedded; kafka: topic `topic`, consumer group `consumerGroup`. */
      queue: z.enum(["in_process", "kafka"], { error: "must be in_process or kafka" }).default("in_process"),
      topic: z.string().min(1).default("ragscope_judge_requests"),
      consumerGroup: z.string().min(1).default("ragscope-judges"),
      /** Traces judged at once by one worker. */
      concurrency: integer(1).default(4),
      /** Judge calls per second (token bucket refill) and burst. */
      ratePerSecond: decimalSetting(z.number().positive("must be more than 0")).default(5),
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
    .strictObject({
      /** A gate file in the seed's §十三 format (contracts/gate-file.ts); null: no alerts. */
      gateFile: z.string().min(1).nullable().default(null),
      /** Default window of rules that name none, e.g. 15m. */
      window: z.string().regex(/^[1-9]\d*(s|m|h|d)$/, "must be a duration such as 30s, 15m, 1h or 1d").default("15m"),
      /** Also cap each window at this many most recent samples; null: time only. */
      windowSamples: integer(2).nullable().default(null),
      minSamples: integer(2).default(20),
      confidence: decimalSetting(z.number().gt(0, "must be between 0 and 1, e.g. 0.95").lt(1, "must be between 0 and 1, e.g. 0.95")).default(0.95),
      hysteresis: decimalSetting(z.number().min(0, "must be 0 or more")).default(0.01),
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
  embeddingsEndpoint: embeddingsEndpointSection,
};

const onlineSectionsSchema = z.object(onlineSections);

export type OnlineConfig = z.infer<typeof onlineSectionsSchema>;
