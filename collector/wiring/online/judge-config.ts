/**
 * Which judge the collector uses — the `judgeEndpoint` section of the settings
 * schema (collector/wiring/config/settings-schema.ts): any OpenAI-compatible
 * chat-completions endpoint when a base URL and model are given, otherwise the
 * deterministic heuristic judge (marked "heuristic" in every result it
 * produces — DESIGN.md "Embedded default and production"). The hourly
 * spending limit and the token prices make the bill predictable: when the
 * limit is reached the sampler stops and says so. With max output tokens set
 * the limit is a hard ceiling (each call's worst case is reserved before it
 * is sent); without them, a call's cost has no known bound and the limit is
 * only checked before each call.
 *
 * The limit is each process's own: the budget is kept in memory
 * (evaluators/judge/judge-budget.ts), so N processes that judge — evaluator
 * replicas of one consumer group, `collect` processes, a serve beside them —
 * can together spend N times it. A group's budget is set as that budget
 * divided by the most replicas that run at once (an autoscaler's maximum);
 * the start line and `ragscope config` say so (PER_PROCESS_SPENDING_LIMIT).
 */
import { z } from "zod";
import { decimalSetting } from "../config/decimal-setting.js";
import { wholeNumberSetting } from "../config/whole-number-setting.js";
import { HeuristicJudge } from "../../../evaluators/judge/heuristic-judge.js";
import { JudgeBudget } from "../../../evaluators/judge/judge-budget.js";
import { JUDGE_METRICS, type Judge } from "../../../evaluators/judge/judge.js";
import { OpenAiJudge } from "../../../evaluators/judge/openai-judge.js";
import { redactUrl } from "../../../core/redact-url.js";
import { STRUCTURED_OUTPUT_MODES } from "../../../evaluators/judge/structured-output.js";

const number = (minimum: number) => decimalSetting(z.number().min(minimum, `must be at least ${minimum}`));

export const judgeEndpointSection = z
  .strictObject({
    baseUrl: z.url({ error: "must be a URL such as https://api.openai.com/v1" }).nullable().default(null),
    model: z.string().min(1).nullable().default(null),
    apiKey: z.string().default(""),
    requestTimeoutMs: number(1).default(30_000),
    /** Per process, not per group: N judging processes can spend N times it (PER_PROCESS_SPENDING_LIMIT). */
    spendingLimitPerHour: number(0).nullable().default(null),
    /** Null (unset): not known — judge_cost is then null, never 0. One set alone prices the other side at 0. */
    inputPricePer1kTokens: number(0).nullable().default(null),
    outputPricePer1kTokens: number(0).nullable().default(null),
    /**
     * auto: negotiate json_schema → json_object → instructions per endpoint
     * (evaluators/judge/structured-output.ts); or one fixed form.
     */
    structuredOutput: z.enum(["auto", ...STRUCTURED_OUTPUT_MODES], { error: "must be auto, json_schema, json_object or instructions" }).default("auto"),
    /** The judge's max_tokens; null: the server's default. Too tight a limit cuts the JSON answer. */
    maxOutputTokens: wholeNumberSetting({ minimum: 1 }).nullable().default(null),
    /** Only these judged metrics; empty: every metric that applies. A way to bound the cost per judged trace. */
    metrics: z.array(z.enum(JUDGE_METRICS, { error: `must be judged metrics: ${JUDGE_METRICS.join(", ")}` })).default([]),
  })
  .prefault({});

export type JudgeEndpointConfig = z.infer<typeof judgeEndpointSection>;

/**
 * What the spending limit covers, where it is shown: one process's judge calls. Replicas do not share
 * it — each keeps its own hour in memory — so N of them can spend N times the limit.
 */
export const PER_PROCESS_SPENDING_LIMIT =
  "per process: each process that judges (every evaluator replica, collect, serve) has its own limit, so N of them can spend N times it; for a budget across the group, set the budget divided by the most replicas that run at once";

/** A base URL without a model (or the reverse) is a mistake, not a request for the heuristic judge. */
export function checkJudgeEndpoint(value: JudgeEndpointConfig, context: z.RefinementCtx): void {
  if ((value.baseUrl === null) !== (value.model === null)) {
    context.addIssue({
      code: "custom",
      path: ["judgeEndpoint", value.baseUrl === null ? "baseUrl" : "model"],
      message: "set both the judge's base URL and model (RAGSCOPE_JUDGE_BASE_URL and RAGSCOPE_JUDGE_MODEL) to use an LLM judge, or neither for the heuristic judge",
    });
  }
}

export interface ConfiguredJudge {
  judge: Judge;
  budget: JudgeBudget | undefined;
  /** For start lines: the base URL's credentials (userinfo, secret query parameters) masked. */
  describe: string;
}

export function createConfiguredJudge(config: Readonly<JudgeEndpointConfig>): ConfiguredJudge {
  if (config.baseUrl === null || config.model === null) return { judge: new HeuristicJudge(), budget: undefined, describe: "deterministic heuristic judge (results marked heuristic)" };
  const budget = config.spendingLimitPerHour === null ? undefined : new JudgeBudget({ limitPerHour: config.spendingLimitPerHour });
  const judge = new OpenAiJudge({
    baseUrl: config.baseUrl,
    apiKey: config.apiKey,
    model: config.model,
    requestTimeoutMs: config.requestTimeoutMs,
    pricing: config.inputPricePer1kTokens === null && config.outputPricePer1kTokens === null ? null : { inputPer1kTokens: config.inputPricePer1kTokens ?? 0, outputPer1kTokens: config.outputPricePer1kTokens ?? 0 },
    budget: budget ?? null,
    structuredOutput: config.structuredOutput,
    ...(config.maxOutputTokens === null ? {} : { maxOutputTokens: config.maxOutputTokens }),
    ...(config.metrics.length === 0 ? {} : { metrics: config.metrics }),
  });
  const form = config.structuredOutput === "auto" ? "structured output negotiated" : `structured output ${config.structuredOutput}`;
  // Without max output tokens a call's worst-case cost is unknown, so the limit cannot reserve it (judge-budget.ts): say so at start.
  const soft = config.maxOutputTokens === null && (config.outputPricePer1kTokens ?? 0) > 0 ? " (checked before each call only: set RAGSCOPE_JUDGE_MAX_OUTPUT_TOKENS to make it a hard ceiling)" : "";
  return { judge, budget, describe: `LLM judge ${config.model} at ${redactUrl(config.baseUrl)} (${form})${config.metrics.length === 0 ? "" : `, metrics ${config.metrics.join(", ")}`}${budget ? `, limit ${config.spendingLimitPerHour} per hour in this process${soft} (N replicas can spend N times it: set the group's budget ÷ replicas)` : ""}` };
}
