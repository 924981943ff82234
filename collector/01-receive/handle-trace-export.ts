/**
 * `POST /v1/traces`: auth → content type → limits → decode → split by trace id
 * → publish → answer (DESIGN.md "Data flow"; shared/reference/interop.md §5).
 *
 * Decoding, the request limits, splitting and re-encoding run in a decode
 * thread (decode-pool.ts), so a large request does not stall other clients.
 * The body's bytes count against the shared in-flight budget until the
 * answer is sent.
 *
 * The answer is 200 only once the bus confirmed every message of the request:
 * a client that got 200 may drop its copy, so nothing may be acknowledged that
 * is not durable (STYLE.md "Acknowledge only what is durable"). When the bus is
 * unavailable the answer is 503 with Retry-After, which OTLP clients retry.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { failure, type Result } from "../../core/result.js";
import type { PublishFailure, TracePublisher } from "../02-transport/trace-bus.js";
import type { RequestLimits } from "../00-otlp/enforce-request-limits.js";
import { RpcCode } from "../00-otlp/otlp-export-response.js";
import type { BearerAuthorization, Credential } from "./bearer-authorization.js";
import type { ByteBudget } from "./byte-budget.js";
import type { DecodePool } from "./decode-pool.js";
import { readRequestBody } from "./read-request-body.js";
import type { ReceiverCounters } from "./receiver-counters.js";
import { encodingOfContentType, parseContentEncoding, type ContentEncoding } from "./request-encoding.js";
import type { OtlpEncoding } from "../00-otlp/otlp-encoding.js";
import type { BudgetShare } from "./byte-budget.js";
import { sendFailure, sendSuccess } from "./send-answer.js";

export interface TraceExportContext {
  publisher: TracePublisher;
  maxBodyBytes: number;
  /** Null when the receiver takes requests without a token. */
  authorization: BearerAuthorization | null;
  counters: ReceiverCounters;
  /** Seconds a client should wait when the bus could not say. */
  defaultRetryAfterSeconds: number;
  /** Decompressed body bytes all requests may hold at once. */
  budget: ByteBudget;
  limits: RequestLimits;
  decoders: DecodePool;
  /** Time a client has to send its whole body. */
  requestTimeoutMs: number;
  /** The latest span time a request may carry now (Unix nanoseconds: the clock plus RAGSCOPE_MAX_FUTURE_SPAN_SECONDS). */
  latestSpanTimeNanos: () => bigint;
  /** The allowance itself, for the answer's message. */
  maxFutureSpanSeconds: number;
}

/** Never reached: a bus without `publishDecoded` is never handed span records. */
async function refuseRecords(): Promise<Result<void, PublishFailure>> {
  return failure({ retriable: false, message: "this bus takes encoded messages only" });
}

export async function handleTraceExport(
  request: IncomingMessage,
  response: ServerResponse,
  context: TraceExportContext,
): Promise<void> {
  const { counters } = context;
  const declaredEncoding = encodingOfContentType(request.headers["content-type"]);
  // Before the content type is known to be OTLP's, failures are told in JSON.
  const answerEncoding = declaredEncoding ?? "json";

  const credential = context.authorization === null ? { tenant: null } : context.authorization.authenticate(request.headers.authorization);
  if (credential === null) {
    counters.rejected.unauthorized += 1;
    sendFailure(request, response, answerEncoding, {
      httpStatus: 401,
      rpcCode: RpcCode.unauthenticated,
      message: "missing or invalid bearer token",
      headers: { "www-authenticate": 'Bearer realm="ragscope"' },
    });
    return;
  }

  if (declaredEncoding === null) {
    counters.rejected.unsupportedMediaType += 1;
    sendFailure(request, response, "json", {
      httpStatus: 415,
      rpcCode: RpcCode.invalidArgument,
      message: `unsupported content type ${JSON.stringify(request.headers["content-type"] ?? "")}: use application/x-protobuf or application/json`,
    });
    return;
  }
  const encoding = declaredEncoding;

  const contentEncoding = parseContentEncoding(request.headers["content-encoding"]);
  if (contentEncoding === null) {
    counters.rejected.unsupportedMediaType += 1;
    sendFailure(request, response, "json", {
      httpStatus: 415,
      rpcCode: RpcCode.invalidArgument,
      message: `unsupported content encoding ${JSON.stringify(request.headers["content-encoding"])}: use gzip or none`,
    });
    return;
  }

  const share = context.budget.share();
  try {
    await receiveBody(request, response, context, encoding, contentEncoding, share, credential);
  } finally {
    share.release();
  }
}

/** 503 with Retry-After: the bus cannot take the spans now; the client keeps them and retries. */
function refuseUnavailable(request: IncomingMessage, response: ServerResponse, context: TraceExportContext, encoding: OtlpEncoding, refusal: PublishFailure): void {
  context.counters.rejected.publishUnavailable += 1;
  const seconds = refusal.retryAfterMs === undefined ? context.defaultRetryAfterSeconds : Math.max(1, Math.ceil(refusal.retryAfterMs / 1000));
  sendFailure(request, response, encoding, {
    httpStatus: 503,
    rpcCode: RpcCode.unavailable,
    message: `trace bus unavailable: ${refusal.message}`,
    headers: { "retry-after": String(seconds) },
  });
}

async function receiveBody(
  request: IncomingMessage,
  response: ServerResponse,
  context: TraceExportContext,
  encoding: OtlpEncoding,
  contentEncoding: ContentEncoding,
  share: BudgetShare,
  credential: Credential,
): Promise<void> {
  const { counters } = context;
  const overBudget = (message: string): void => {
    counters.rejected.overBudget += 1;
    sendFailure(request, response, encoding, {
      httpStatus: 503,
      rpcCode: RpcCode.unavailable,
      message,
      headers: { "retry-after": String(context.defaultRetryAfterSeconds) },
    });
  };
  // Nothing of the body is read while the budget is spent.
  if (context.budget.exhausted) {
    overBudget("the receiver holds as many request bytes as it may (RAGSCOPE_MAX_IN_FLIGHT_BYTES); retry later");
    return;
  }
  // Nor while the bus takes nothing: the refusal costs no read and no decode.
  const refusal = context.publisher.refusal?.();
  if (refusal) {
    refuseUnavailable(request, response, context, encoding, refusal);
    return;
  }
  const body = await readRequestBody(request, { contentEncoding, maxBodyBytes: context.maxBodyBytes, budget: share, timeoutMs: context.requestTimeoutMs });
  if (!body.ok) {
    switch (body.error.kind) {
      case "timedOut":
        counters.rejected.timedOut += 1;
        sendFailure(request, response, encoding, { httpStatus: 408, rpcCode: RpcCode.unavailable, message: body.error.message });
        return;
      case "overBudget":
        overBudget(body.error.message);
        return;
      case "aborted":
        counters.rejected.clientAborted += 1;
        return;
      case "tooLarge":
        counters.rejected.payloadTooLarge += 1;
        sendFailure(request, response, encoding, {
          httpStatus: 413,
          rpcCode: RpcCode.resourceExhausted,
          message: body.error.message,
        });
        return;
      case "badCompression":
        counters.rejected.malformed += 1;
        sendFailure(request, response, encoding, {
          httpStatus: 400,
          rpcCode: RpcCode.invalidArgument,
          message: body.error.message,
        });
        return;
    }
  }

  // A bus in this process takes the decode thread's span records as they are: nothing is encoded again, nor decoded again.
  const publishDecoded = context.publisher.publishDecoded?.bind(context.publisher);
  const prepared = await context.decoders.run({
    body: body.value,
    encoding,
    limits: context.limits,
    tenant: credential.tenant,
    latestSpanTimeNanos: context.latestSpanTimeNanos(),
    output: publishDecoded === undefined ? "encoded" : "decoded",
    ...(context.publisher.maxMessageBytes === undefined ? {} : { maxMessageBytes: context.publisher.maxMessageBytes }),
  });
  switch (prepared.kind) {
    case "malformed":
      counters.rejected.malformed += 1;
      sendFailure(request, response, encoding, { httpStatus: 400, rpcCode: RpcCode.invalidArgument, message: prepared.message });
      return;
    case "tooLarge":
      counters.rejected.payloadTooLarge += 1;
      sendFailure(request, response, encoding, { httpStatus: 413, rpcCode: RpcCode.resourceExhausted, message: prepared.message });
      return;
    case "failed":
      // A decode thread died (out of memory, or a bug): the client keeps its data and may retry.
      counters.rejected.internalError += 1;
      sendFailure(request, response, encoding, { httpStatus: 500, rpcCode: RpcCode.internal, message: `the request could not be decoded: ${prepared.message}` });
      return;
    case "prepared":
    case "decoded":
      break;
  }
  const { rejectedSpans, futureSpans, spanCount } = prepared;
  counters.spansReceived += spanCount + rejectedSpans + futureSpans;
  counters.spansRejectedInvalidId += rejectedSpans;
  counters.spansRejectedFutureTime += futureSpans;
  counters.attributeValuesTruncated += prepared.limited.truncatedValues;
  counters.attributesDroppedForKeyLength += prepared.limited.droppedAttributes;
  counters.eventsDropped += prepared.limited.droppedEvents;
  counters.linksDropped += prepared.limited.droppedLinks;
  counters.namesTruncated += prepared.limited.truncatedNames;
  const traceCount = prepared.kind === "decoded" ? prepared.traces.length : prepared.messages.length;
  // An empty request SHOULD succeed (§5); there is nothing to make durable.
  if (traceCount > 0) {
    // Records come back only when they were asked for, i.e. when the bus takes them.
    const published = prepared.kind === "prepared" ? await context.publisher.publish(prepared.messages) : await (publishDecoded ?? refuseRecords)(prepared.traces);
    if (!published.ok) {
      const { retriable, message, tooLarge } = published.error;
      if (tooLarge === true) {
        counters.rejected.payloadTooLarge += 1;
        sendFailure(request, response, encoding, { httpStatus: 413, rpcCode: RpcCode.resourceExhausted, message });
      } else if (retriable) {
        refuseUnavailable(request, response, context, encoding, published.error);
      } else {
        counters.rejected.publishFailed += 1;
        sendFailure(request, response, encoding, {
          httpStatus: 500,
          rpcCode: RpcCode.internal,
          message: `trace bus refused the spans: ${message}`,
        });
      }
      return;
    }
  }
  counters.accepted += 1;
  counters.spansAccepted += spanCount;
  counters.tracesPublished += traceCount;
  sendSuccess(request, response, encoding, {
    rejectedSpans: rejectedSpans + futureSpans,
    message: [
      rejectedSpans === 0 ? null : `${rejectedSpans} span(s) with an all-zero trace id or span id were rejected: OTLP ids must not be all zeros (the client's id generator is broken or unset)`,
      futureSpans === 0 ? null : `${futureSpans} span(s) starting or ending more than ${context.maxFutureSpanSeconds} s after the receiver's clock were rejected: check the sending host's clock (NTP) and that times are Unix nanoseconds (RAGSCOPE_MAX_FUTURE_SPAN_SECONDS sets the allowance)`,
    ]
      .filter((part) => part !== null)
      .join("; "),
  });
}
