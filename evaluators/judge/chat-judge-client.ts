/**
 * One structured judge call to any OpenAI-compatible chat-completions endpoint,
 * through the `openai` client library (issue 6: "through a well-kept client
 * library, not hand-written HTTP").
 *
 * - temperature 0 (seed 004 §九.3 "固定温度为 0").
 * - Structured output is negotiated per endpoint (structured-output.ts):
 *   `json_schema`, then `json_object` with the schema, then plain instructions
 *   with the schema in the prompt; a server that refuses a form (HTTP 400 or
 *   422 on it, or a 500/501 naming the form — judge-call-failure.ts) is asked
 *   again at once in the next form, within the same attempt. The form that
 *   worked and the forms refused are remembered for the endpoint, so a form is
 *   refused at most once per endpoint and process; any other error (5xx,
 *   timeout) is retried in the same form. A fixed form can be configured
 *   instead (`structuredOutput`).
 * - In the `instructions` form the answer is extracted from prose
 *   (json-answer.ts: the one object the rubric accepts; several that differ
 *   are ambiguous) and, if it still does not validate, the model gets one
 *   repair turn: its answer and what is wrong with it. In every form an object
 *   copied from the prompt's fenced, untrusted text is not a verdict.
 * - The client's own retries are off (maxRetries 0): the one retry helper
 *   (core/retry.ts) decides, within an attempt and deadline budget,
 *   honouring the server's Retry-After.
 * - Before each HTTP request its worst-case cost is reserved in the spending
 *   limit (judge-budget.ts): every prompt token it can be billed and the max
 *   output tokens, at the configured prices. A reservation that would pass the
 *   limit ends the call with `budget_exhausted` and no HTTP request, so
 *   concurrent calls cannot overshoot it. Without max output tokens the worst
 *   case is unknown and only the spending so far is checked (see
 *   `worstCaseCost`).
 * - Every request's tokens are counted, failed ones included, and priced (with
 *   the usage the server reports; estimated only when it reports none); that
 *   cost settles the request's reservation. A request refused with an error
 *   status releases it. A request that timed out (or that the caller aborted)
 *   may still be billed: its worst case is kept as spent, and the call's cost
 *   is not known (null).
 * - The answer must be a JSON object that the caller's interpreter accepts
 *   (the rubric's zod schema); anything else is `unparseable`. A refusal field,
 *   a content-filter stop or a structured `{"cannot_judge": true}` is `refusal`.
 */
import OpenAI from "openai";
import type { ChatCompletion, ChatCompletionCreateParamsNonStreaming, ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { failure, success, type Result } from "../../core/result.js";
import { retry, type RetryHooks, type RetryPolicy } from "../../core/retry.js";
import { failureFromClientError, isStructuredOutputRefusal, judgeCallFailure, type JudgeCallFailure } from "./judge-call-failure.js";
import type { JudgeErrorType, JudgeUsage } from "./judge.js";
import { noUsage } from "./judge.js";
import type { JudgeBudget } from "./judge-budget.js";
import { costOf, estimateTokens, promptTokensAtMost, sumCosts, worstCaseCost, type JudgePricing } from "./judge-pricing.js";
import { fencedTexts } from "./fence-text.js";
import { readJsonAnswer } from "./json-answer.js";
import { cannotJudgeAnswer } from "./rubrics/judge-rubric.js";
import { fetchOptionsWithTimeout } from "./timeout-dispatcher.js";
import { modesToTry, SHARED_STRUCTURED_OUTPUT_MEMORY, type StructuredOutputMemory, type StructuredOutputMode, type StructuredOutputSetting } from "./structured-output.js";

export const DEFAULT_JUDGE_RETRY_POLICY: RetryPolicy = { initialDelayMs: 500, maxDelayMs: 8_000, maxAttempts: 3, deadlineMs: 60_000 };
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
/** The bearer token sent when no key is configured (see the constructor). */
export const KEYLESS = "no-key";

export interface ChatJudgeClientOptions {
  /** Base URL of the OpenAI-compatible API, e.g. https://api.openai.com/v1. */
  baseUrl: string;
  apiKey: string;
  model: string;
  /** Per HTTP attempt. */
  requestTimeoutMs?: number;
  retryPolicy?: RetryPolicy;
  /** Null or absent: no price configured — the calls' cost is null (not known), never 0. */
  pricing?: JudgePricing | null;
  budget?: JudgeBudget | null;
  /** `auto` (default) negotiates the strongest form the endpoint accepts; a mode fixes it. */
  structuredOutput?: StructuredOutputSetting;
  /** What each endpoint accepted; default: the one memory of the process. */
  structuredOutputMemory?: StructuredOutputMemory;
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
  /** The structured-output form the answer came in. */
  mode: StructuredOutputMode;
  /** A repair turn was spent during the call (instructions form only; once per call). */
  repaired: boolean;
}

export interface StructuredFailure {
  errorType: JudgeErrorType;
  message: string;
  usage: JudgeUsage;
  attempts: number;
}

/** What one completion said, before interpretation: the content is kept for a repair turn. */
type ReadAnswer<Value> = Result<Value, JudgeCallFailure & { content: string | null; repairable: boolean }>;

export class ChatJudgeClient {
  readonly model: string;
  readonly baseUrl: string;
  private readonly client: OpenAI;
  private readonly requestTimeoutMs: number;
  private readonly retryPolicy: RetryPolicy;
  /** Null: no price configured, so the calls' cost is not known (null, never 0). */
  private readonly pricing: JudgePricing | null;
  private readonly budget: JudgeBudget | null;
  private readonly structuredOutput: StructuredOutputSetting;
  private readonly memory: StructuredOutputMemory;
  private readonly maxOutputTokens: number | undefined;
  private readonly retryHooks: Omit<RetryHooks, "signal">;

  constructor(options: ChatJudgeClientOptions) {
    this.model = options.model;
    this.baseUrl = options.baseUrl;
    this.requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.retryPolicy = options.retryPolicy ?? DEFAULT_JUDGE_RETRY_POLICY;
    this.pricing = options.pricing ?? null;
    this.budget = options.budget ?? null;
    this.structuredOutput = options.structuredOutput ?? "auto";
    this.memory = options.structuredOutputMemory ?? SHARED_STRUCTURED_OUTPUT_MEMORY;
    this.maxOutputTokens = options.maxOutputTokens;
    this.retryHooks = options.retryHooks ?? {};
    // Local servers (llama.cpp, Ollama, vLLM without --api-key) need no key, but the client library
    // refuses an empty one: a placeholder is sent instead, and a server that wants a key answers 401.
    this.client = new OpenAI({ baseURL: options.baseUrl, apiKey: options.apiKey === "" ? KEYLESS : options.apiKey, maxRetries: 0, timeout: this.requestTimeoutMs, fetchOptions: fetchOptionsWithTimeout(this.requestTimeoutMs) });
  }

  /** The form this client will use next for its endpoint (known, fixed, or the first to try). */
  get structuredOutputMode(): StructuredOutputMode {
    return modesToTry(this.structuredOutput, this.memory.get(this.baseUrl, this.model), this.memory.refused(this.baseUrl, this.model))[0] ?? "instructions";
  }

  async call<Value>(request: StructuredRequest<Value>, signal?: AbortSignal): Promise<Result<StructuredSuccess<Value>, StructuredFailure>> {
    // Unpriced, the call's cost is not known from the start, whatever it does.
    const usage = { ...noUsage(), cost: this.pricing === null ? null : 0 };
    let attempts = 0;
    let answeredIn: StructuredOutputMode = this.structuredOutputMode;
    let repairUsed = false;
    const refused: string[] = [];

    const send = async (body: ChatCompletionCreateParamsNonStreaming): Promise<Result<ChatCompletion, { failure: JudgeCallFailure; error: unknown }>> => {
      if (signal?.aborted) return failure({ failure: judgeCallFailure("timeout", "the judge call was aborted by the caller", false), error: null });
      const worstCase = this.worstCaseCost(body);
      const reservation = this.budget?.reserve(worstCase) ?? null;
      if (reservation !== null && !reservation.ok) return failure({ failure: judgeCallFailure("budget_exhausted", reservation.error, false), error: null });
      usage.calls += 1;
      try {
        const completion = await this.client.chat.completions.create(body, { signal: signal ?? null, timeout: this.requestTimeoutMs, maxRetries: 0 });
        const cost = this.count(usage, body, completion);
        // Unpriced: nothing known is spent, as before prices were configured (judge-pricing.ts worstCaseCost).
        reservation?.value.settle(cost ?? 0);
        return success(completion);
      } catch (error) {
        const failed = failureFromClientError(error);
        if (failed.errorType === "timeout") {
          // A request left unanswered (its time ran out, or the caller gave up) may still run at the provider and
          // be billed there, and nothing tells what it used: the spending limit keeps its worst case as spent, so
          // timeouts cannot carry spending past the ceiling, and the call's cost is not known (null, never 0).
          if (worstCase !== null) reservation?.value.settle(worstCase);
          if (this.pricing !== null) usage.knownCost = usage.cost ?? usage.knownCost ?? 0;
          usage.cost = null;
        }
        return failure({ failure: failed, error });
      } finally {
        // Whatever did not settle (an error status, a timeout, an abort) spent nothing we can count.
        reservation?.value.release();
      }
    };

    const attempt = async (): Promise<Result<Value, JudgeCallFailure>> => {
      // One call at a time finds the form an endpoint takes; the others then use what it found.
      const endTurn = this.structuredOutput === "auto" && this.memory.get(this.baseUrl, this.model) === undefined ? await this.memory.negotiate(this.baseUrl, this.model, signal) : null;
      try {
        return await attemptOnce(endTurn ?? (() => {}));
      } finally {
        endTurn?.();
      }
    };

    /** `formFound`: ends this call's turn as soon as the endpoint accepted a form, before its answer is read or repaired. */
    const attemptOnce = async (formFound: () => void): Promise<Result<Value, JudgeCallFailure>> => {
      attempts += 1;
      const known = this.memory.get(this.baseUrl, this.model);
      // An endpoint that accepted a form once is not renegotiated: its later errors are errors.
      // A form the endpoint refused is not asked again (at most one refusal per form, endpoint and process).
      const modes = known === undefined ? modesToTry(this.structuredOutput, undefined, this.memory.refused(this.baseUrl, this.model)) : modesToTry(this.structuredOutput, known).slice(0, 1);
      for (const [index, mode] of modes.entries()) {
        const body = this.body(request, mode);
        const sent = await send(body);
        if (!sent.ok) {
          const canStepDown = this.structuredOutput === "auto" && index < modes.length - 1 && isStructuredOutputRefusal(sent.error.error);
          if (canStepDown) {
            this.memory.recordRefusal(this.baseUrl, this.model, mode);
            refused.push(`${mode}: ${sent.error.failure.message}`);
            continue;
          }
          return failure(sent.error.failure);
        }
        if (this.structuredOutput === "auto") this.memory.record(this.baseUrl, this.model, mode);
        formFound();
        answeredIn = mode;
        const read = this.read(sent.value, request, mode);
        if (read.ok || mode !== "instructions" || !read.error.repairable || repairUsed) return read.ok ? read : failure(withoutContent(read.error));
        repairUsed = true;
        const repairBody = this.repairBody(body, read.error.content ?? "", read.error.message);
        const repaired = await send(repairBody);
        if (!repaired.ok) return failure(repaired.error.failure);
        const second = this.read(repaired.value, request, mode);
        return second.ok ? second : failure({ ...withoutContent(second.error), message: `${second.error.message} (after a repair turn; first answer: ${read.error.message})` });
      }
      // Unreachable: the last mode never steps down.
      return failure(judgeCallFailure("http_error", `the judge endpoint refused every structured-output form: ${refused.join("; ")}`, false));
    };

    const outcome = await retry<Value, JudgeCallFailure>(attempt, this.retryPolicy, signal === undefined ? this.retryHooks : { ...this.retryHooks, signal });
    if (outcome.ok) return success({ value: outcome.value, usage, attempts, mode: answeredIn, repaired: repairUsed });
    const failed = outcome.error;
    const suffix = [attempts > 1 ? `after ${attempts} attempts` : "", refused.length > 0 ? `forms refused: ${refused.join("; ")}` : ""].filter((part) => part !== "").join("; ");
    return failure({ errorType: failed.errorType, message: suffix === "" ? failed.message : `${failed.message} (${suffix})`, usage, attempts });
  }

  private body<Value>(request: StructuredRequest<Value>, mode: StructuredOutputMode): ChatCompletionCreateParamsNonStreaming {
    // The schema goes after the user message, not into the system message: the prompt then
    // starts as in the other forms, and a server's prompt cache (llama.cpp, vLLM) reuses it.
    const user = mode === "instructions" ? `${request.user}\n\nThe JSON object must match this JSON Schema:\n${JSON.stringify(request.jsonSchema)}` : request.user;
    const body: ChatCompletionCreateParamsNonStreaming = {
      model: this.model,
      temperature: 0,
      messages: [
        { role: "system", content: request.system },
        { role: "user", content: user },
      ],
      ...(this.maxOutputTokens === undefined ? {} : { max_tokens: this.maxOutputTokens }),
    };
    if (mode === "json_schema") body.response_format = { type: "json_schema", json_schema: { name: request.schemaName, schema: request.jsonSchema, strict: false } };
    // `schema` beside `json_object` is the llama-cpp-python server's extension (it then constrains
    // the answer to the schema); other servers ignore the field.
    if (mode === "json_object") body.response_format = { type: "json_object", schema: request.jsonSchema } as ChatCompletionCreateParamsNonStreaming["response_format"];
    return body;
  }

  /** The one repair turn: the model sees its answer and what is wrong with it. */
  private repairBody(previous: ChatCompletionCreateParamsNonStreaming, content: string, problem: string): ChatCompletionCreateParamsNonStreaming {
    const messages: ChatCompletionMessageParam[] = [
      ...previous.messages,
      { role: "assistant", content },
      {
        role: "user",
        content: `Your answer cannot be used: ${problem}\nReply again with only the JSON object, matching the JSON Schema above, complete and closed, with short reasons — no prose, no code fence.`,
      },
    ];
    return { ...previous, messages };
  }

  /**
   * The most this request can cost: every prompt token it can be billed (the
   * messages and the structured-output schema it carries) and the max output
   * tokens. Null when output is priced and no max output tokens are set.
   */
  private worstCaseCost(body: ChatCompletionCreateParamsNonStreaming): number | null {
    const texts = body.messages.map((message) => (typeof message.content === "string" ? message.content : JSON.stringify(message.content ?? "")));
    return worstCaseCost(this.pricing, promptTokensAtMost(texts, body.response_format === undefined ? "" : JSON.stringify(body.response_format)), this.maxOutputTokens);
  }

  /** Adds the completion's tokens and cost to the call's usage; returns its cost (null: no price configured). */
  private count(usage: JudgeUsage, body: ChatCompletionCreateParamsNonStreaming, completion: ChatCompletion): number | null {
    const reported = completion.usage;
    const inputTokens = reported?.prompt_tokens ?? estimateTokens(body.messages.map((message) => (typeof message.content === "string" ? message.content : "")).join(""));
    const outputTokens = reported?.completion_tokens ?? estimateTokens(completion.choices[0]?.message.content ?? "");
    const cost = costOf(this.pricing, inputTokens, outputTokens);
    usage.inputTokens += inputTokens;
    usage.outputTokens += outputTokens;
    // After a timeout the total is not known, but what answered is: the spending counter counts it (knownCost).
    if (usage.cost === null && usage.knownCost !== undefined && cost !== null) usage.knownCost += cost;
    usage.cost = sumCosts([usage.cost, cost]);
    return cost;
  }

  private read<Value>(completion: ChatCompletion, request: StructuredRequest<Value>, mode: StructuredOutputMode): ReadAnswer<Value> {
    const notRepairable = (failed: JudgeCallFailure) => failure({ ...failed, content: null, repairable: false });
    const choice = completion.choices[0];
    if (choice === undefined) return notRepairable(judgeCallFailure("unparseable", "the judge answered with no choice", true));
    const refusal = choice.message.refusal;
    if (typeof refusal === "string" && refusal.trim() !== "") return notRepairable(judgeCallFailure("refusal", `the judge refused: ${refusal.trim()}`, true));
    if (choice.finish_reason === "content_filter") return notRepairable(judgeCallFailure("refusal", "the judge's answer was stopped by a content filter", true));
    const content = choice.message.content;
    if (content === null || content.trim() === "") return notRepairable(judgeCallFailure("unparseable", "the judge answered with empty content", true));
    const repairable = (message: string, retriable = true) => failure({ ...judgeCallFailure("unparseable", message, retriable), content, repairable: true });
    // The verdict is the object the rubric accepts (or a structured decline), never one copied from the fenced data.
    const parsed = readJsonAnswer(content, mode === "instructions", {
      untrusted: fencedTexts(request.user),
      accepts: (value) => cannotJudgeAnswer.safeParse(value).success || request.interpret(value).ok,
    });
    if (!parsed.ok) {
      // An answer cut at the output token limit is cut again when asked again at temperature 0: the retries only paid
      // for it three times. The repair turn, which asks for a shorter answer, is still spent.
      const cut = choice.finish_reason === "length";
      return repairable(`${parsed.error.message}${cut ? " (the answer was cut at the output token limit; not retried: raise RAGSCOPE_JUDGE_MAX_OUTPUT_TOKENS)" : ""}`, !cut);
    }
    const declined = cannotJudgeAnswer.safeParse(parsed.value);
    if (declined.success) return notRepairable(judgeCallFailure("refusal", `the judge declined: ${declined.data.reason || "no reason given"}`, true));
    const interpreted = request.interpret(parsed.value);
    if (!interpreted.ok) return repairable(interpreted.error);
    return success(interpreted.value);
  }
}

function withoutContent(failed: JudgeCallFailure & { content: string | null; repairable: boolean }): JudgeCallFailure {
  return judgeCallFailure(failed.errorType, failed.message, failed.retriable, failed.retryAfterMs);
}

/** JSON only; a reasoning preamble and one surrounding Markdown code fence are tolerated, prose is not. */
export function parseJsonObject(content: string): Result<Record<string, unknown>, string> {
  const read = readJsonAnswer(content, false);
  return read.ok ? read : failure(read.error.message);
}
