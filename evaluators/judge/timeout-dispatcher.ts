/**
 * The HTTP dispatcher of the judge and embeddings clients, whose timeouts
 * follow the configured request timeout (RAGSCOPE_JUDGE_TIMEOUT_MS,
 * RAGSCOPE_EMBEDDINGS_TIMEOUT_MS).
 *
 * Why: the `openai` client calls Node's `fetch`, whose default dispatcher
 * gives up when the response headers, or the gap between two body chunks,
 * take longer than 300 s — whatever timeout the client was given. A judge on a
 * CPU-only server can take longer than that for one answer, so a user who sets
 * 600,000 ms must get 600,000 ms. The dispatcher's limits are set a little
 * above the client's own timeout, so the client's timeout (a clean
 * `timeout` grader error) is what ends a slow call, never the dispatcher.
 *
 * The client library documents passing an undici dispatcher through
 * `fetchOptions` (its proxy example does the same).
 */
import { Agent } from "undici";

/** Room between the client's own timeout and the dispatcher's, so the client's fires first. */
export const DISPATCHER_TIMEOUT_MARGIN_MS = 5_000;

export interface DispatcherTimeouts {
  headersTimeout: number;
  bodyTimeout: number;
}

export function dispatcherTimeoutsFor(requestTimeoutMs: number): DispatcherTimeouts {
  if (!(Number.isFinite(requestTimeoutMs) && requestTimeoutMs > 0)) throw new RangeError(`a request timeout must be a positive number of milliseconds, got ${requestTimeoutMs}`);
  const limit = requestTimeoutMs + DISPATCHER_TIMEOUT_MARGIN_MS;
  return { headersTimeout: limit, bodyTimeout: limit };
}

/** `fetchOptions` for an OpenAI client whose requests may take up to `requestTimeoutMs`. */
export function fetchOptionsWithTimeout(requestTimeoutMs: number): { dispatcher: Agent } {
  return { dispatcher: new Agent(dispatcherTimeoutsFor(requestTimeoutMs)) };
}
