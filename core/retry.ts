/**
 * Kept in core/ beside Result because every side uses it: the collector
 * (sink writes, deliveries, the Kafka consumer runner, the judge queues) and
 * the evaluators (judge calls). core/ imports nothing but node built-ins and
 * zod, so any folder may depend on it.
 *
 * The one retry helper (STYLE.md "One retry helper, policy injected"):
 * exponential backoff with full jitter, honours a server's retry-after hint,
 * stops at a deadline or attempt budget, and gives up at once on a failure that
 * says it is not retriable. Operations return Results; nothing is classified by
 * parsing error text.
 */
import { failure, type Result } from "./result.js";

export interface RetryPolicy {
  initialDelayMs: number;
  maxDelayMs: number;
  /** Give up after this many attempts (Infinity: until the deadline). */
  maxAttempts: number;
  /** Give up when the next attempt would start after this many ms from the first. */
  deadlineMs: number;
}

export interface RetriableFailure {
  retriable: boolean;
  message: string;
  retryAfterMs?: number;
}

export interface RetryHooks {
  /** Called before each wait; lets callers count retries and report them. */
  onRetry?: (attempt: number, delayMs: number, failure: RetriableFailure) => void;
  /** Aborts the waiting (shutdown). */
  signal?: AbortSignal;
  random?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export const defaultSleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const onAbort = () => {
      clearTimeout(timer);
      resolve();
    };
    // The listener leaves with the wait: kept on a long-lived signal, every retry of an outage added one more
    // (node warned of a possible leak after ten).
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });

export async function retry<Value, Failure extends RetriableFailure>(
  operation: (attempt: number) => Promise<Result<Value, Failure>>,
  policy: RetryPolicy,
  hooks: RetryHooks = {},
): Promise<Result<Value, Failure>> {
  const started = Date.now();
  const random = hooks.random ?? Math.random;
  const sleep = hooks.sleep ?? defaultSleep;
  for (let attempt = 1; ; attempt += 1) {
    const result = await operation(attempt);
    if (result.ok || !result.error.retriable) return result;
    if (attempt >= policy.maxAttempts || hooks.signal?.aborted) return result;
    const backoff = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** (attempt - 1));
    const delay = Math.max(result.error.retryAfterMs ?? 0, Math.round(random() * backoff));
    if (Date.now() - started + delay > policy.deadlineMs) return result;
    hooks.onRetry?.(attempt, delay, result.error);
    await sleep(delay, hooks.signal);
    if (hooks.signal?.aborted) return failure(result.error);
  }
}
