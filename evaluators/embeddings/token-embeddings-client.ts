/**
 * Per-token embeddings for BERTScore-style matching (greedy-token-matching.ts)
 * from llama.cpp's `llama-server --embeddings --pooling none`: its native
 * `POST /embeddings` (not the OpenAI-compatible `/v1/embeddings`, which refuses
 * `--pooling none`) answers `[{index, embedding: number[][]}]`, one vector per
 * token of each input text. No OpenAI-compatible API returns token vectors, so
 * this is the one endpoint shape supported; the request still goes through the
 * `openai` client library (its generic `post`), so timeouts, error classes and
 * retries are the judge's (core/retry.ts, judge-call-failure.ts).
 *
 * Token vectors are large (a 500-token answer of a 1,024-dimension model is
 * half a million numbers), so the cache is bounded by the count of numbers it
 * holds, not by entries; least recently used texts are evicted.
 */
import OpenAI from "openai";
import { failure, success, type Result } from "../../core/result.js";
import { retry, type RetryHooks, type RetryPolicy } from "../../core/retry.js";
import { KEYLESS } from "../judge/chat-judge-client.js";
import { failureFromClientError, judgeCallFailure, type JudgeCallFailure } from "../judge/judge-call-failure.js";
import { fetchOptionsWithTimeout } from "../judge/timeout-dispatcher.js";
import { DEFAULT_EMBEDDINGS_RETRY_POLICY, type EmbeddingsFailure } from "./embeddings-client.js";

/** About 64 MB of float64 numbers. */
export const DEFAULT_TOKEN_CACHE_VALUES = 8_000_000;

export interface TokenEmbeddingsClientOptions {
  /** The full URL of the endpoint, e.g. http://127.0.0.1:8082/embeddings. */
  url: string;
  /** A name for the model behind it: part of the metric's evaluator version and of the cache key. */
  model: string;
  apiKey?: string;
  requestTimeoutMs?: number;
  retryPolicy?: RetryPolicy;
  /** Numbers (token vectors × dimension) kept in memory; default DEFAULT_TOKEN_CACHE_VALUES. */
  cacheValues?: number;
  retryHooks?: Omit<RetryHooks, "signal">;
}

export interface TokenEmbedded {
  /** Per text, one vector per token. */
  tokens: Float64Array[][];
  calls: number;
  cachedTexts: number;
}

type NativeEmbeddingsResponse = { index?: unknown; embedding?: unknown }[];

function tokenVectors(item: { embedding?: unknown }): Float64Array[] | null {
  const rows = item.embedding;
  if (!Array.isArray(rows) || rows.length === 0) return null;
  const vectors: Float64Array[] = [];
  for (const row of rows) {
    if (!Array.isArray(row) || row.length === 0 || row.some((value) => typeof value !== "number" || !Number.isFinite(value))) return null;
    vectors.push(Float64Array.from(row as number[]));
  }
  return vectors;
}

export class TokenEmbeddingsClient {
  readonly model: string;
  readonly url: string;
  private readonly client: OpenAI;
  private readonly path: string;
  private readonly retryPolicy: RetryPolicy;
  private readonly retryHooks: Omit<RetryHooks, "signal">;
  private readonly capacity: number;
  private held = 0;
  private readonly cache = new Map<string, Float64Array[]>();

  constructor(options: TokenEmbeddingsClientOptions) {
    this.model = options.model;
    this.url = options.url;
    const url = new URL(options.url);
    this.path = url.pathname;
    this.retryPolicy = options.retryPolicy ?? DEFAULT_EMBEDDINGS_RETRY_POLICY;
    this.retryHooks = options.retryHooks ?? {};
    this.capacity = options.cacheValues ?? DEFAULT_TOKEN_CACHE_VALUES;
    if (!Number.isInteger(this.capacity) || this.capacity < 0) throw new RangeError(`token embeddings cache values must be a non-negative integer, got ${this.capacity}`);
    const timeout = options.requestTimeoutMs ?? 30_000;
    const apiKey = options.apiKey ?? "";
    this.client = new OpenAI({ baseURL: url.origin, apiKey: apiKey === "" ? KEYLESS : apiKey, maxRetries: 0, timeout, fetchOptions: fetchOptionsWithTimeout(timeout) });
  }

  /** Token vectors per text, in order; the uncached texts go in one request. */
  async embedTokens(texts: readonly string[], signal?: AbortSignal): Promise<Result<TokenEmbedded, EmbeddingsFailure>> {
    const found: (Float64Array[] | undefined)[] = texts.map((text) => this.cached(text));
    const missing = [...new Set(texts.filter((_, index) => found[index] === undefined))];
    let calls = 0;
    if (missing.length > 0) {
      const fetched = await retry<Float64Array[][], JudgeCallFailure>(
        async () => {
          if (signal?.aborted) return failure(judgeCallFailure("timeout", "the token embeddings call was aborted by the caller", false));
          calls += 1;
          let response: NativeEmbeddingsResponse;
          try {
            response = await this.client.post<NativeEmbeddingsResponse>(this.path, { body: { input: missing }, signal: signal ?? null, maxRetries: 0 });
          } catch (error) {
            return failure(failureFromClientError(error));
          }
          if (!Array.isArray(response) || response.length !== missing.length) {
            return failure(judgeCallFailure("unparseable", `${this.url} did not answer with one entry per text ([{index, embedding: [[…], …]}], llama-server's native /embeddings): got ${Array.isArray(response) ? `${response.length} entries for ${missing.length} texts` : typeof response}`, false));
          }
          const ordered = [...response].sort((left, right) => Number(left.index) - Number(right.index));
          const vectors = ordered.map(tokenVectors);
          if (vectors.some((item) => item === null)) {
            return failure(judgeCallFailure("unparseable", `${this.url} answered without token vectors (an entry's embedding is not a list of number lists): start llama-server with --embeddings --pooling none`, false));
          }
          return success(vectors as Float64Array[][]);
        },
        this.retryPolicy,
        signal === undefined ? this.retryHooks : { ...this.retryHooks, signal },
      );
      if (!fetched.ok) return failure({ errorType: fetched.error.errorType, message: `${fetched.error.message}${calls > 1 ? ` (after ${calls} attempts)` : ""}` });
      const byText = new Map(missing.map((text, index) => [text, fetched.value[index]!] as const));
      byText.forEach((vectors, text) => this.remember(text, vectors));
      texts.forEach((text, index) => {
        found[index] ??= byText.get(text);
      });
    }
    const cachedTexts = texts.filter((text) => !missing.includes(text)).length;
    return success({ tokens: found as Float64Array[][], calls, cachedTexts });
  }

  /** Numbers held by the cache. */
  get cachedValues(): number {
    return this.held;
  }

  private key(text: string): string {
    return `${this.model}\u0000${text}`;
  }

  private cached(text: string): Float64Array[] | undefined {
    const key = this.key(text);
    const vectors = this.cache.get(key);
    if (vectors === undefined) return undefined;
    this.cache.delete(key);
    this.cache.set(key, vectors);
    return vectors;
  }

  private remember(text: string, vectors: Float64Array[]): void {
    const size = vectors.reduce((sum, vector) => sum + vector.length, 0);
    if (size > this.capacity) return;
    const key = this.key(text);
    const previous = this.cache.get(key);
    if (previous !== undefined) this.held -= previous.reduce((sum, vector) => sum + vector.length, 0);
    this.cache.delete(key);
    this.cache.set(key, vectors);
    this.held += size;
    while (this.held > this.capacity) {
      const [oldestKey, oldest] = this.cache.entries().next().value as [string, Float64Array[]];
      this.cache.delete(oldestKey);
      this.held -= oldest.reduce((sum, vector) => sum + vector.length, 0);
    }
  }
}
