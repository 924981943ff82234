/**
 * The receiver's one pipeline, whatever the transport carried the request
 * (OTLP/HTTP: handle-trace-export.ts; OTLP/gRPC: grpc-trace-service.ts):
 * auth → admission (byte budget, bus) → decode → split by trace id → publish
 * → outcome (DESIGN.md "Data flow"; shared/reference/interop.md §5).
 *
 * Each transport reads the body its own way and words the outcome in its own
 * protocol (an HTTP status, a gRPC status); what is decided and counted is
 * decided and counted here, once, so the two cannot drift apart.
 *
 * The outcome is "accepted" only once the bus confirmed every message of the
 * request: a client told so may drop its copy, so nothing may be acknowledged
 * that is not durable (STYLE.md "Acknowledge only what is durable").
 */
import { failure, success, type Result } from "../../core/result.js";
import type { PublishFailure, TracePublisher } from "../02-transport/trace-bus.js";
import type { RequestLimits } from "../00-otlp/enforce-request-limits.js";
import type { OtlpEncoding } from "../00-otlp/otlp-encoding.js";
import { RpcCode, type RpcCodeNumber } from "../00-otlp/otlp-export-response.js";
import type { BearerAuthorization, Credential } from "./bearer-authorization.js";
import type { ByteBudget } from "./byte-budget.js";
import type { DecodePool } from "./decode-pool.js";
import type { ReceiverCounters, ReceiverProtocol, RejectionReason } from "./receiver-counters.js";

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

/** Why a request was refused, in the terms both transports answer with (the gRPC status is the google.rpc.Code). */
export interface ExportRefusal {
  reason: RejectionReason;
  rpcCode: RpcCodeNumber;
  message: string;
  /** Set when the client should retry after this many seconds (HTTP Retry-After). */
  retryAfterSeconds?: number;
}

export type ExportOutcome = { kind: "accepted"; rejectedSpans: number; message: string } | { kind: "refused"; refusal: ExportRefusal };

export const overBudgetMessage = "the receiver holds as many request bytes as it may (RAGSCOPE_MAX_IN_FLIGHT_BYTES); retry later";

/** Counts one request as it arrives, before anything is known of it. */
export function countRequest(context: TraceExportContext, protocol: ReceiverProtocol): void {
  context.counters.requests += 1;
  if (protocol === "grpc") context.counters.grpc.requests += 1;
}

/** Counts a request accepted: its items are in the bus. */
export function countAccepted(context: TraceExportContext, protocol: ReceiverProtocol): void {
  context.counters.accepted += 1;
  if (protocol === "grpc") context.counters.grpc.accepted += 1;
}

/**
 * A publish the bus refused, as the client is answered, counted: 413 for messages the bus can never take, 503 with
 * Retry-After while it cannot take them now, else 500. `what` names what was refused ("the spans", "the log records").
 */
export function refusalOfPublishFailure(context: TraceExportContext, protocol: ReceiverProtocol, failure: PublishFailure, what: string): ExportRefusal {
  if (failure.tooLarge === true) return refuse(context, protocol, { reason: "payloadTooLarge", rpcCode: RpcCode.resourceExhausted, message: failure.message });
  if (failure.retriable) return refuseUnavailable(context, protocol, failure);
  return refuse(context, protocol, { reason: "publishFailed", rpcCode: RpcCode.internal, message: `trace bus refused ${what}: ${failure.message}` });
}

/** Counts a refusal under its reason (every request ends accepted or under exactly one reason) and gives it back. */
export function refuse(context: TraceExportContext, protocol: ReceiverProtocol, refusal: ExportRefusal): ExportRefusal {
  context.counters.rejected[refusal.reason] += 1;
  if (protocol === "grpc") context.counters.grpc.rejected[refusal.reason] += 1;
  return refusal;
}

/** The credential an `authorization` value (HTTP header, gRPC metadata) carries; refused when it carries no configured token. */
export function authenticateExport(context: TraceExportContext, protocol: ReceiverProtocol, authorization: string | undefined): Result<Credential, ExportRefusal> {
  if (context.authorization === null) return success({ tenant: null });
  const credential = context.authorization.authenticate(authorization);
  if (credential !== null) return success(credential);
  return failure(refuse(context, protocol, { reason: "unauthorized", rpcCode: RpcCode.unauthenticated, message: "missing or invalid bearer token" }));
}

/**
 * Whether a request may be read at all: not while the byte budget is spent,
 * nor while the bus takes nothing — such a refusal costs no read and no decode.
 */
export function admitExport(context: TraceExportContext, protocol: ReceiverProtocol): ExportRefusal | null {
  if (context.budget.exhausted) return refuse(context, protocol, overBudget(context, overBudgetMessage));
  const refusal = context.publisher.refusal?.();
  return refusal ? refuseUnavailable(context, protocol, refusal) : null;
}

/** UNAVAILABLE (503) with a delay: the receiver holds too many bytes; the client keeps them and retries. */
export function overBudget(context: TraceExportContext, message: string): ExportRefusal {
  return { reason: "overBudget", rpcCode: RpcCode.unavailable, message, retryAfterSeconds: context.defaultRetryAfterSeconds };
}

/** UNAVAILABLE (503) with Retry-After: the bus cannot take the spans now; the client keeps them and retries. */
function refuseUnavailable(context: TraceExportContext, protocol: ReceiverProtocol, refusal: PublishFailure): ExportRefusal {
  const seconds = refusal.retryAfterMs === undefined ? context.defaultRetryAfterSeconds : Math.max(1, Math.ceil(refusal.retryAfterMs / 1000));
  return refuse(context, protocol, { reason: "publishUnavailable", rpcCode: RpcCode.unavailable, message: `trace bus unavailable: ${refusal.message}`, retryAfterSeconds: seconds });
}

/** Never reached: a bus without `publishDecoded` is never handed span records. */
export async function refuseRecords(): Promise<Result<void, PublishFailure>> {
  return failure({ retriable: false, message: "this bus takes encoded messages only" });
}

export interface ReceivedBody {
  /** The decompressed body, at most `maxBodyBytes`; its buffer may be transferred to a decode thread. */
  body: Uint8Array;
  encoding: OtlpEncoding;
  credential: Credential;
}

/** Decodes, checks, splits and publishes a body; the outcome once the bus confirmed it (or refused). */
export async function exportTraceBody(context: TraceExportContext, protocol: ReceiverProtocol, received: ReceivedBody): Promise<ExportOutcome> {
  const { counters } = context;
  const refused = (refusal: ExportRefusal): ExportOutcome => ({ kind: "refused", refusal: refuse(context, protocol, refusal) });
  // A bus in this process takes the decode thread's span records as they are: nothing is encoded again, nor decoded again.
  const publishDecoded = context.publisher.publishDecoded?.bind(context.publisher);
  const prepared = await context.decoders.run({
    body: received.body,
    encoding: received.encoding,
    limits: context.limits,
    tenant: received.credential.tenant,
    latestSpanTimeNanos: context.latestSpanTimeNanos(),
    output: publishDecoded === undefined ? "encoded" : "decoded",
    ...(context.publisher.maxMessageBytes === undefined ? {} : { maxMessageBytes: context.publisher.maxMessageBytes }),
  });
  switch (prepared.kind) {
    case "malformed":
      return refused({ reason: "malformed", rpcCode: RpcCode.invalidArgument, message: prepared.message });
    case "tooLarge":
      return refused({ reason: "payloadTooLarge", rpcCode: RpcCode.resourceExhausted, message: prepared.message });
    case "failed":
      // A decode thread died (out of memory, or a bug): the client keeps its data and may retry.
      return refused({ reason: "internalError", rpcCode: RpcCode.internal, message: `the request could not be decoded: ${prepared.message}` });
    case "logEvents":
    case "logMessages":
      // Never for a request read as a trace export: a bug, told as one.
      return refused({ reason: "internalError", rpcCode: RpcCode.internal, message: "the trace request was read as a logs export" });
    case "prepared":
    case "decoded":
      break;
  }
  const { rejectedSpans, futureSpans, zeroTimeSpans, spanCount } = prepared;
  const refusedSpans = rejectedSpans + futureSpans + zeroTimeSpans;
  counters.spansReceived += spanCount + refusedSpans;
  counters.spansRejectedInvalidId += rejectedSpans;
  counters.spansRejectedFutureTime += futureSpans;
  counters.spansRejectedZeroTime += zeroTimeSpans;
  // Refused here whatever becomes of the request's other spans; those are dropped only if the bus refuses them.
  counters.spansDropped += refusedSpans;
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
      counters.spansDropped += spanCount;
      return { kind: "refused", refusal: refusalOfPublishFailure(context, protocol, published.error, "the spans") };
    }
  }
  countAccepted(context, protocol);
  counters.spansAccepted += spanCount;
  counters.tracesPublished += traceCount;
  return {
    kind: "accepted",
    rejectedSpans: refusedSpans,
    message: [
      rejectedSpans === 0 ? null : `${rejectedSpans} span(s) with an all-zero trace id or span id were rejected: OTLP ids must not be all zeros (the client's id generator is broken or unset)`,
      futureSpans === 0 ? null : `${futureSpans} span(s) starting or ending more than ${context.maxFutureSpanSeconds} s after the receiver's clock were rejected: check the sending host's clock (NTP) and that times are Unix nanoseconds (RAGSCOPE_MAX_FUTURE_SPAN_SECONDS sets the allowance)`,
      zeroTimeSpans === 0 ? null : `${zeroTimeSpans} span(s) with a zero (unset) start or end time, or one before 2000, were rejected: OTLP requires both times, in Unix nanoseconds (the sending host's clock or the instrumentation that sets them is broken or unset, or writes milliseconds or seconds)`,
    ]
      .filter((part) => part !== null)
      .join("; "),
  };
}
