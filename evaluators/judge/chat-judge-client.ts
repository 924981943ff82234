/**
 * One structured judge call to any OpenAI-compatible chat-completions endpoint,
 * through the `openai` client library (issue 6: "through a well-kept client
 * library, not hand-written HTTP").
 *
 * - temperature 0 and a JSON response format (seed 004 §九.3 "固定温度为 0");
 *   `json_object` by default (the widest support), `json_schema` on request.
 * - The client's own retries are off (maxRetries 0): the one retry helper
 *   (core/retry.ts) decides, within an attempt and deadline budget,
 *   honouring the server's Retry-After.
 * - Before each attempt the spending limit is checked; an exhausted budget
 *   ends the call with `budget_exhausted` and no HTTP request.
 * - Every attempt's tokens are counted, failed ones included, priced, and
 *   recorded in the budget.
 * - The answer must be a JSON object that the caller's interpreter accepts
 *   (the rubric's zod schema); anything else is `unparseable`. A refusal field,
 *   a content-filter stop or a structured `{"cannot_judge": true}` is `refusal`.
 */
import OpenAI from "openai";
import type { ChatCompletion, ChatCompletionCreateParamsNonStreaming } from "openai/resources/chat/completions";
import { failure, success, type Result } from "../../core/result.js";
import { retry, type RetryHooks, type RetryPolicy } from "../../core/retry.js";
import { failureFromClientError, judgeCallFailure, type JudgeCallFailure } from "./judge-call-failure.js";
import type { JudgeErrorType, JudgeUsage } from "./judge.js";
import { noUsage } from "./judge.js";
import type { JudgeBudget } from "./judge-budget.js";
import { costOf, estimateTokens, FREE, type JudgePricing } from "./judge-pricing.js";
import { cannotJudgeAnswer } from "./rubrics/judge-rubric.js";

export const DEFAULT_JUDGE_RETRY_POLICY: RetryPolicy = { initialDelayMs: 500, maxDelayMs: 8_000, maxAttempts: 3, deadlineMs: 60_000 };
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

export interface ChatJudgeClientOptions {
  /** Base URL of the OpenAI-compatible API, e.g. https://api.openai.com/v1. */
  baseUrl: string;
  apiKey: string;
  model: string;
  /** Per HTTP attempt. */
  requestTimeoutMs?: number;
  retryPolicy?: RetryPolicy;
  pricing?: JudgePricing;
  budget?: JudgeBudget | null;
  responseFormat?: "json_object" | "json_schema";
  maxOutputTokens?: number;
  /** Observability of retries (and, in tests, the clock of the waits). */
  retryHooks?: Omit<RetryHooks, "signal">;
}

export interface StructuredRequest<Value> {
  system: string;
  user: string;
  /** Name of the JSON schema for `json_schema` mode. */
  schemaName: string;
  jsonSchema: Record<string, unknown>;
  /** Accepts the parsed JSON answer, or says why it is not acceptable. */
  interpret(answer: unknown): Result<Value, string>;
}

export interface StructuredSuccess<Value> {
  value: Value;
  usage: JudgeUsage;
  attempts: number;
}

export interface StructuredFailure {
  errorType: JudgeErrorType;
  message: string;
  usage: JudgeUsage;
  attempts: number;
}

export class ChatJudgeClient {
  readonly model: string;
  readonly baseUrl: string;
  private readonly client: OpenAI;
  private readonly requestTimeoutMs: number;
  private readonly retryPolicy: RetryPolicy;
  private readonly pricing: JudgePricing;
  private readonly budget: JudgeBudget | null;
  private readonly responseFormat: "json_object" | "json_schema";
  private readonly maxOutputTokens: number | undefined;
  private readonly retryHooks: Omit<RetryHooks, "signal">;

  constructor(options: ChatJudgeClientOptions) {
    this.model = options.model;
    this.baseUrl = options.baseUrl;
    this.requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.retryPolicy = options.retryPolicy ?? DEFAULT_JUDGE_RETRY_POLICY;
    this.pricing = options.pricing ?? FREE;
    this.budget = options.budget ?? null;
    this.responseFormat = options.responseFormat ?? "json_object";
    this.maxOutputTokens = options.maxOutputTokens;
    this.retryHooks = options.retryHooks ?? {};
    this.client = new OpenAI({ baseURL: options.baseUrl, apiKey: options.apiKey, maxRetries: 0, timeout: this.requestTimeoutMs });
  }

  async call<Value>(request: StructuredRequest<Value>, signal?: AbortSignal): Promise<Result<StructuredSuccess<Value>, StructuredFailure>> {
    const usage = noUsage();
    let attempts = 0;
    const outcome = await retry<Value, JudgeCallFailure>(
      async () => {
        if (signal?.aborted) return failure(judgeCallFailure("timeout", "the judge call was aborted by the caller", false));
        if (this.budget?.exhausted) return failure(judgeCallFailure("budget_exhausted", this.budget.reason ?? "judge spending limit reached", false));
        attempts += 1;
        usage.calls += 1;
        let completion: ChatCompletion;
        try {
          completion = await this.client.chat.completions.create(this.body(request), { signal: signal ?? null, timeout: this.requestTimeoutMs, maxRetries: 0 });
        } catch (error) {
          return failure(failureFromClientError(error));
        }
        this.count(usage, request, completion);
        return this.read(completion, request);
      },
      this.retryPolicy,
      signal === undefined ? this.retryHooks : { ...this.retryHooks, signal },
    );
    if (outcome.ok) return success({ value: outcome.value, usage, attempts });
    const failed = outcome.error;
    const message = attempts > 1 ? `${failed.message} (after ${attempts} attempts)` : failed.message;
    return failure({ errorType: failed.errorType, message, usage, attempts });
  }

  private body<Value>(request: StructuredRequest<Value>): ChatCompletionCreateParamsNonStreaming {
    return {
      model: this.model,
      temperature: 0,
      messages: [
        { role: "system", content: request.system },
        { role: "user", content: request.user },
      ],
      response_format:
        this.responseFormat === "json_schema"
          ? { type: "json_schema", json_schema: { name: request.schemaName, schema: request.jsonSchema, strict: false } }
          : { type: "json_object" },
      ...(this.maxOutputTokens === undefined ? {} : { max_tokens: this.maxOutputTokens }),
    };
  }

  private count<Value>(usage: JudgeUsage, request: StructuredRequest<Value>, completion: ChatCompletion): void {
    const reported = completion.usage;
    const inputTokens = reported?.prompt_tokens ?? estimateTokens(request.system + request.user);
    const outputTokens = reported?.completion_tokens ?? estimateTokens(completion.choices[0]?.message.content ?? "");
    const cost = costOf(this.pricing, inputTokens, outputTokens);
    usage.inputTokens += inputTokens;
    usage.outputTokens += outputTokens;
    usage.cost += cost;
    this.budget?.record(cost);
  }

  private read<Value>(completion: ChatCompletion, request: StructuredRequest<Value>): Result<Value, JudgeCallFailure> {
    const choice = completion.choices[0];
    if (choice === undefined) return failure(judgeCallFailure("unparseable", "the judge answered with no choice", true));
    const refusal = choice.message.refusal;
    if (typeof refusal === "string" && refusal.trim() !== "") return failure(judgeCallFailure("refusal", `the judge refused: ${refusal.trim()}`, true));
    if (choice.finish_reason === "content_filter") return failure(judgeCallFailure("refusal", "the judge's answer was stopped by a content filter", true));
    const content = choice.message.content;
    if (content === null || content.trim() === "") return failure(judgeCallFailure("unparseable", "the judge answered with empty content", true));
    const parsed = parseJsonObject(content);
    if (!parsed.ok) {
      const cut = choice.finish_reason === "length" ? " (the answer was cut at the output token limit)" : "";
      return failure(judgeCallFailure("unparseable", `${parsed.error}${cut}`, true));
    }
    const declined = cannotJudgeAnswer.safeParse(parsed.value);
    if (declined.success) return failure(judgeCallFailure("refusal", `the judge declined: ${declined.data.reason || "no reason given"}`, true));
    const interpreted = request.interpret(parsed.value);
    if (!interpreted.ok) return failure(judgeCallFailure("unparseable", interpreted.error, true));
    return success(interpreted.value);
  }
}

/** JSON only; one surrounding Markdown code fence is tolerated, prose is not. */
export function parseJsonObject(content: string): Result<Record<string, unknown>, string> {
  const trimmed = content.trim();
  const unfenced = /^```(?:json)?\s*\n([\s\S]*?)\n?```$/i.exec(trimmed)?.[1] ?? trimmed;
  let value: unknown;
  try {
    value = JSON.parse(unfenced);
  } catch {
    return failure(`the judge's answer is not JSON: ${preview(trimmed)}`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) return failure(`the judge's answer is JSON but not an object: ${preview(trimmed)}`);
  return success(value as Record<string, unknown>);
}

function preview(text: string): string {
  const flat = text.replace(/\s+/g, " ");
  return flat.length > 120 ? `"${flat.slice(0, 120)}…"` : `"${flat}"`;
}
