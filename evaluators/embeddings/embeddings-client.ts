/**
 * Embeddings from any OpenAI-compatible `/v1/embeddings` endpoint (OpenAI,
 * vLLM, Ollama, llama.cpp's `llama-server --embeddings`, LM Studio), through the
 * `openai` client library, with the judge's retry rules (core/retry.ts and
 * evaluators/judge/judge-call-failure.ts: class and status, never message text).
 *
 * Vectors are cached by model and exact text (least recently used evicted), like
 * judge verdicts: an answer seen again, or the same reference answer for every
 * run of a dataset, is not embedded twice. `encoding_format: "float"` is asked
 * for explicitly: the client library would otherwise ask for base64, which not
 * every server speaks.
 */
import OpenAI from "openai";
import { failure, success, type Result } from "../../core/result.js";
import { retry, type RetryHooks, type RetryPolicy } from "../../core/retry.js";
import { KEYLESS } from "../judge/chat-judge-client.js";
import { fetchOptionsWithTimeout } from "../judge/timeout-dispatcher.js";
import { failureFromClientError, judgeCallFailure, type JudgeCallFailure } from "../judge/judge-call-failure.js";

export const DEFAULT_EMBEDDINGS_RETRY_POLICY: RetryPolicy = { initialDelayMs: 500, maxDelayMs: 8_000, maxAttempts: 3, deadlineMs: 60_000 };

export interface EmbeddingsClientOptions {
  /** Base URL of the OpenAI-compatible API, e.g. http://127.0.0.1:8081/v1. */
  baseUrl: string;
  apiKey: string;
  model: string;
  requestTimeoutMs?: number;
  retryPolicy?: RetryPolicy;
  /** Vectors kept in memory; default 10,000. */
  cacheEntries?: number;
  retryHooks?: Omit<RetryHooks, "signal">;
}

export interface Embedded {
  vectors: number[][];
  /** Tokens the server reported for the texts it embedded (0 when all were cached). */
  inputTokens: number;
  /** HTTP requests made, failed attempts included. */
  calls: number;
  /** How many of the texts came from the cache. */
  cachedTexts: number;
}

export interface EmbeddingsFailure {
  errorType: JudgeCallFailure["errorType"];
  message: string;
}

export class EmbeddingsClient {
  readonly model: string;
  readonly baseUrl: string;
  private readonly client: OpenAI;
  private readonly retryPolicy: RetryPolicy;
  private readonly retryHooks: Omit<RetryHooks, "signal">;
  private readonly capacity: number;
  private readonly cache = new Map<string, number[]>();

  constructor(options: EmbeddingsClientOptions) {
    this.model = options.model;
    this.baseUrl = options.baseUrl;
    this.retryPolicy = options.retryPolicy ?? DEFAULT_EMBEDDINGS_RETRY_POLICY;
    this.retryHooks = options.retryHooks ?? {};
    this.capacity = options.cacheEntries ?? 10_000;
    if (!Number.isInteger(this.capacity) || this.capacity < 0) throw new RangeError(`embeddings cache entries must be a non-negative integer, got ${this.capacity}`);
    const timeout = options.requestTimeoutMs ?? 30_000;
    // No key configured (a local server): the placeholder of the judge client (see ChatJudgeClient).
    this.client = new OpenAI({ baseURL: options.baseUrl, apiKey: options.apiKey === "" ? KEYLESS : options.apiKey, maxRetries: 0, timeout, fetchOptions: fetchOptionsWithTimeout(timeout) });
  }

  /** One vector per text, in order; the uncached texts go in one request. */
  async embed(texts: readonly string[], signal?: AbortSignal): Promise<Result<Embedded, EmbeddingsFailure>> {
    const vectors: (number[] | undefined)[] = texts.map((text) => this.cached(text));
    const missing = [...new Set(texts.filter((_, index) => vectors[index] === undefined))];
    let calls = 0;
    let inputTokens = 0;
    if (missing.length > 0) {
      const fetched = await retry<number[][], JudgeCallFailure>(
        async () => {
          if (signal?.aborted) return failure(judgeCallFailure("timeout", "the embeddings call was aborted by the caller", false));
          calls += 1;
          try {
            const response = await this.client.embeddings.create({ model: this.model, input: missing, encoding_format: "float" }, { signal: signal ?? null, maxRetries: 0 });
            const ordered = [...response.data].sort((left, right) => left.index - right.index).map((item) => item.embedding);
            if (ordered.length !== missing.length || ordered.some((vector) => !Array.isArray(vector) || vector.length === 0)) {
              return failure(judgeCallFailure("unparseable", `the embeddings endpoint returned ${ordered.length} vectors for ${missing.length} texts`, false));
            }
            inputTokens += response.usage?.prompt_tokens ?? 0;
            return success(ordered);
          } catch (error) {
            return failure(failureFromClientError(error));
          }
        },
        this.retryPolicy,
        signal === undefined ? this.retryHooks : { ...this.retryHooks, signal },
      );
      if (!fetched.ok) return failure({ errorType: fetched.error.errorType, message: `${fetched.error.message}${calls > 1 ? ` (after ${calls} attempts)` : ""}` });
      const fetchedByText = new Map(missing.map((text, index) => [text, fetched.value[index]!] as const));
      fetchedByText.forEach((vector, text) => this.remember(text, vector));
      texts.forEach((text, index) => {
        vectors[index] ??= fetchedByText.get(text);
      });
    }
    const cachedTexts = texts.length - texts.filter((text) => missing.includes(text)).length;
    return success({ vectors: vectors as number[][], inputTokens, calls, cachedTexts });
  }

  get cachedVectors(): number {
    return this.cache.size;
  }

  private key(text: string): string {
    return `${this.model}\u0000${text}`;
  }

  private cached(text: string): number[] | undefined {
    const key = this.key(text);
    const vector = this.cache.get(key);
    if (vector === undefined) return undefined;
    this.cache.delete(key);
    this.cache.set(key, vector);
    return vector;
  }

  private remember(text: string, vector: number[]): void {
    if (this.capacity === 0) return;
    const key = this.key(text);
    this.cache.delete(key);
    this.cache.set(key, vector);
    while (this.cache.size > this.capacity) this.cache.delete(this.cache.keys().next().value as string);
  }
}
