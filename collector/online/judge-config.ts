/**
 * Which judge the collector uses, from `RAGSCOPE_JUDGE_*` variables: any
 * OpenAI-compatible chat-completions endpoint when a base URL and model are
 * given, otherwise the deterministic heuristic judge (marked "heuristic" in
 * every result it produces — DESIGN.md "Embedded default and production").
 * The hourly spending limit and the token prices make the bill predictable:
 * when the limit is reached the sampler stops and says so.
 */
import { z } from "zod";
import { failure, success, type Result } from "../../core/result.js";
import { HeuristicJudge } from "../../evaluators/judge/heuristic-judge.js";
import { JudgeBudget } from "../../evaluators/judge/judge-budget.js";
import type { Judge } from "../../evaluators/judge/judge.js";
import { OpenAiJudge } from "../../evaluators/judge/openai-judge.js";

const number = (minimum: number) => z.coerce.number({ error: "must be a number" }).min(minimum, `must be at least ${minimum}`);

export const judgeEndpointSchema = z
  .object({
    baseUrl: z.url({ error: "must be a URL such as https://api.openai.com/v1" }).nullable().default(null),
    model: z.string().min(1).nullable().default(null),
    apiKey: z.string().default(""),
    requestTimeoutMs: number(1).default(30_000),
    spendingLimitPerHour: number(0).nullable().default(null),
    inputPricePer1kTokens: number(0).default(0),
    outputPricePer1kTokens: number(0).default(0),
  })
  .superRefine((value, context) => {
    if ((value.baseUrl === null) !== (value.model === null)) {
      context.addIssue({ code: "custom", path: [value.baseUrl === null ? "baseUrl" : "model"], message: "set both RAGSCOPE_JUDGE_BASE_URL and RAGSCOPE_JUDGE_MODEL to use an LLM judge, or neither for the heuristic judge" });
    }
  });

export type JudgeEndpointConfig = z.infer<typeof judgeEndpointSchema>;

export const judgeEnvironmentVariables: Record<string, keyof JudgeEndpointConfig> = {
  RAGSCOPE_JUDGE_BASE_URL: "baseUrl",
  RAGSCOPE_JUDGE_MODEL: "model",
  RAGSCOPE_JUDGE_API_KEY: "apiKey",
  RAGSCOPE_JUDGE_TIMEOUT_MS: "requestTimeoutMs",
  RAGSCOPE_JUDGE_SPENDING_LIMIT_PER_HOUR: "spendingLimitPerHour",
  RAGSCOPE_JUDGE_INPUT_PRICE_PER_1K: "inputPricePer1kTokens",
  RAGSCOPE_JUDGE_OUTPUT_PRICE_PER_1K: "outputPricePer1kTokens",
};

export interface ConfiguredJudge {
  judge: Judge;
  budget: JudgeBudget | undefined;
  describe: string;
}

export function judgeFromEnvironment(environment: NodeJS.ProcessEnv): Result<ConfiguredJudge, string[]> {
  const raw: Record<string, string> = {};
  for (const [variable, field] of Object.entries(judgeEnvironmentVariables)) {
    const value = environment[variable];
    if (value !== undefined && value !== "") raw[field] = value;
  }
  const parsed = judgeEndpointSchema.safeParse(raw);
  if (!parsed.success) {
    return failure(
      parsed.error.issues.map((issue) => {
        const variable = Object.entries(judgeEnvironmentVariables).find(([, field]) => field === issue.path[0])?.[0] ?? issue.path.join(".");
        return `${variable}: ${issue.message}`;
      }),
    );
  }
  const config = parsed.data;
  if (config.baseUrl === null || config.model === null) return success({ judge: new HeuristicJudge(), budget: undefined, describe: "deterministic heuristic judge (results marked heuristic)" });
  const budget = config.spendingLimitPerHour === null ? undefined : new JudgeBudget({ limitPerHour: config.spendingLimitPerHour });
  const judge = new OpenAiJudge({
    baseUrl: config.baseUrl,
    apiKey: config.apiKey,
    model: config.model,
    requestTimeoutMs: config.requestTimeoutMs,
    pricing: { inputPer1kTokens: config.inputPricePer1kTokens, outputPer1kTokens: config.outputPricePer1kTokens },
    budget: budget ?? null,
  });
  return success({ judge, budget, describe: `LLM judge ${config.model} at ${config.baseUrl}${budget ? `, limit ${config.spendingLimitPerHour} per hour` : ""}` });
}
