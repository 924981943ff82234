/**
 * A failed judge call as a value (STYLE.md "Expected failures are values"),
 * shaped for the one retry helper (core/retry.ts): whether to try
 * again is decided here, at the edge, from error classes and HTTP status codes
 * of the `openai` client — never from message text.
 *
 * Retriable: timeouts, connection failures, 408, 409, 429 (after its
 * Retry-After), 5xx, refusals and unparseable output (issue 6: "retried within
 * a budget"). Not retriable: other 4xx (a bad key or model will not fix
 * itself), an exhausted spending limit, a caller's abort.
 */
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError, RateLimitError } from "openai";
import type { RetriableFailure } from "../../core/retry.js";
import type { JudgeErrorType } from "./judge.js";

export interface JudgeCallFailure extends RetriableFailure {
  errorType: JudgeErrorType;
}

export function judgeCallFailure(errorType: JudgeErrorType, message: string, retriable: boolean, retryAfterMs?: number): JudgeCallFailure {
  return retryAfterMs === undefined ? { errorType, message, retriable } : { errorType, message, retriable, retryAfterMs };
}

/**
 * The server's requested wait: `retry-after-ms` (OpenAI's extension), else
 * `Retry-After` in seconds or as an HTTP date (RFC 9110 §10.2.3).
 */
export function retryAfterMsFrom(headers: Headers | undefined, now = Date.now()): number | undefined {
  if (headers === undefined) return undefined;
  const milliseconds = headers.get("retry-after-ms");
  if (milliseconds !== null && /^\d+(\.\d+)?$/.test(milliseconds.trim())) return Math.ceil(Number(milliseconds));
  const value = headers.get("retry-after");
  if (value === null) return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Math.ceil(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function isRetriableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** Maps what the `openai` client threw. Anything that is not an OpenAI error is a bug and is rethrown. */
export function failureFromClientError(error: unknown): JudgeCallFailure {
  // Order matters: the timeout and abort classes extend APIConnectionError / APIError.
  if (error instanceof APIConnectionTimeoutError) return judgeCallFailure("timeout", "the judge endpoint did not answer within the request timeout", true);
  if (error instanceof APIUserAbortError) return judgeCallFailure("timeout", "the judge call was aborted by the caller", false);
  if (error instanceof APIConnectionError) return judgeCallFailure("http_error", `cannot reach the judge endpoint: ${error.message}`, true);
  if (error instanceof RateLimitError) return judgeCallFailure("rate_limited", "the judge endpoint answered 429 Too Many Requests", true, retryAfterMsFrom(error.headers));
  if (error instanceof APIError) {
    const status = error.status;
    if (status === undefined) return judgeCallFailure("http_error", `the judge endpoint failed: ${error.message}`, true);
    const retryAfterMs = retryAfterMsFrom(error.headers);
    return judgeCallFailure("http_error", `the judge endpoint failed with HTTP ${status} (${error.message})`, isRetriableStatus(status), retryAfterMs);
  }
  throw error;
}

/** The error names the structured-output request: the `response_format` field or one of its forms. */
const NAMES_THE_FORM = /response_format|json_schema|json_object/i;

/**
 * Whether an error is the server refusing the requested structured-output
 * form (structured-output.ts), so the same request is worth sending in a weaker
 * form:
 *
 * - 400 and 422: a request the server does not accept (OpenAI, Ollama, vLLM,
 *   LM Studio answer an unsupported `response_format` so) — unless the server
 *   names another parameter as the culprit (OpenAI's `param`);
 * - 500 and 501 only when the error names the form (`response_format`,
 *   `json_schema`, `json_object`): the llama-cpp-python server fails
 *   `json_schema` with a 500 whose message is `'json_schema'`. Any other 5xx is
 *   an outage, not a refusal: it is retried in the same form, so an endpoint
 *   that is down costs no extra requests per attempt;
 * - never 401/403/404/408/409/429, a gateway's 502–504, a timeout or a
 *   connection failure.
 */
export function isStructuredOutputRefusal(error: unknown): boolean {
  if (!(error instanceof APIError) || error.status === undefined) return false;
  const param = error.param;
  const namesAnotherParameter = param !== undefined && param !== null && !String(param).startsWith("response_format");
  if (error.status === 400 || error.status === 422) return !namesAnotherParameter;
  if (error.status === 500 || error.status === 501) return !namesAnotherParameter && NAMES_THE_FORM.test(`${error.message} ${JSON.stringify(error.error ?? null)}`);
  return false;
}
