/**
 * Errors of the `openai` client mapped by class and status — never by message
 * text — to grader error types and retriability.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError, AuthenticationError, InternalServerError, RateLimitError } from "openai";
import { failureFromClientError, retryAfterMsFrom } from "../../../evaluators/judge/judge-call-failure.js";

describe("judge call failures", () => {
  test("classes and statuses map to error types and retriability", () => {
    assert.deepEqual(
      [
        new APIConnectionTimeoutError(),
        new APIUserAbortError(),
        new APIConnectionError({ message: "connection refused" }),
        new RateLimitError(429, {}, "rate limited", new Headers({ "retry-after": "2" })),
        new InternalServerError(503, {}, "unavailable", new Headers()),
        new AuthenticationError(401, {}, "bad key", new Headers()),
        APIError.generate(408, {}, "request timeout", new Headers()),
        APIError.generate(409, {}, "conflict", new Headers()),
        APIError.generate(422, {}, "unprocessable", new Headers()),
      ].map((error) => {
        const failure = failureFromClientError(error);
        return [failure.errorType, failure.retriable, failure.retryAfterMs];
      }),
      [
        ["timeout", true, undefined],
        ["timeout", false, undefined],
        ["http_error", true, undefined],
        ["rate_limited", true, 2000],
        ["http_error", true, undefined],
        ["http_error", false, undefined],
        ["http_error", true, undefined],
        ["http_error", true, undefined],
        ["http_error", false, undefined],
      ],
    );
  });

  test("the same message text in another class is classified by the class", () => {
    // A 400 whose message mentions a timeout is still a non-retriable HTTP error.
    const failure = failureFromClientError(APIError.generate(400, { message: "request timed out, rate limit" }, "timed out", new Headers()));
    assert.equal(failure.errorType, "http_error");
    assert.equal(failure.retriable, false);
  });

  test("anything that is not an OpenAI error is a bug and is rethrown", () => {
    assert.throws(() => failureFromClientError(new TypeError("boom")), TypeError);
  });

  test("Retry-After: retry-after-ms first, then seconds, then an HTTP date", () => {
    const now = Date.parse("2026-07-08T10:00:00Z");
    assert.equal(retryAfterMsFrom(new Headers({ "retry-after-ms": "250", "retry-after": "5" }), now), 250);
    assert.equal(retryAfterMsFrom(new Headers({ "retry-after": "1.5" }), now), 1500);
    assert.equal(retryAfterMsFrom(new Headers({ "retry-after": "Wed, 08 Jul 2026 10:00:03 GMT" }), now), 3000);
    assert.equal(retryAfterMsFrom(new Headers({ "retry-after": "soon" }), now), undefined);
    assert.equal(retryAfterMsFrom(undefined, now), undefined);
  });
});
