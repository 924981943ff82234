/**
 * OTLP/gRPC's side of the receiver's one pipeline (export-trace-request.ts):
 * the unary method `opentelemetry.proto.collector.trace.v1.TraceService/Export`
 * (shared/reference/interop.md §5), served by @grpc/grpc-js.
 *
 * The method is registered with identity (de)serializers: the request arrives
 * as the protobuf bytes of an ExportTraceServiceRequest, which the decode
 * threads read exactly as they read an OTLP/HTTP protobuf body, and the answer
 * goes back as the bytes of an ExportTraceServiceResponse. No .proto file is
 * loaded at run time.
 *
 * Per the OTLP specification the statuses are: UNAUTHENTICATED for a missing or
 * unknown bearer token (the `authorization` metadata, the tokens and tenants of
 * OTLP/HTTP), INVALID_ARGUMENT for a message that is not OTLP (not retried),
 * RESOURCE_EXHAUSTED without RetryInfo past the size bounds (not retried),
 * UNAVAILABLE while the bus takes nothing or when a call waited its whole
 * request time for the byte budget (retried), and OK
 * with `partial_success` when some spans were rejected. OK is sent only once the
 * bus confirmed every message.
 *
 * The interceptor does what must happen before the message is read — count the
 * call, check the token and the admission, bound the time the client has to send
 * it, and reserve the message's bytes from the receiver's byte budget — and counts the calls grpc-js ends itself (a message past
 * `grpc.max_receive_message_length`, before or after gzip, an undecodable gzip
 * message, an unsupported grpc-encoding, a client that cancels), so every call
 * ends accepted or under exactly one rejection reason, as over HTTP.
 *
 * grpc-js buffers a call's whole message (up to `grpc.max_receive_message_length`)
 * before an interceptor sees it, and shows no one the length its frame declares;
 * what it buffers is what the call reads once `startRead` lets it. So a call
 * reserves the largest message (RAGSCOPE_MAX_BODY_BYTES) from the byte budget
 * before it may read, waits in line while the budget has not that much left, and
 * keeps only its message's size once the message arrived. A waiting call is not
 * read: HTTP/2 flow control leaves its bytes with the client (at most the 64 KiB
 * window). Messages being read or held thus share RAGSCOPE_MAX_IN_FLIGHT_BYTES
 * with OTLP/HTTP bodies, however many calls are open.
 */
import grpc from "@grpc/grpc-js";
import { encodeExportPartialSuccess, encodeExportSuccess, RpcCode } from "../00-otlp/otlp-export-response.js";
import type { Credential } from "./bearer-authorization.js";
import type { BudgetShare } from "./byte-budget.js";
import { admitExport, authenticateExport, countRequest, exportTraceBody, overBudget, overBudgetMessage, refuse, type ExportRefusal, type TraceExportContext } from "./export-trace-request.js";

export const traceServicePath = "/opentelemetry.proto.collector.trace.v1.TraceService/Export";

const identity = (bytes: Buffer): Buffer => bytes;

export const traceServiceDefinition: grpc.ServiceDefinition = {
  Export: {
    path: traceServicePath,
    requestStream: false,
    responseStream: false,
    requestSerialize: identity,
    requestDeserialize: identity,
    responseSerialize: identity,
    responseDeserialize: identity,
  },
};

type CallStatus = Parameters<grpc.ServerInterceptingCallInterface["sendStatus"]>[0];

/** What the interceptor learned of a call, for the method handler; keyed by the call's metadata, which grpc-js hands the handler as it is. */
interface CallState {
  credential: Credential;
  /** The call's part of the byte budget: the reservation, then its message's size, until it is answered. */
  share: BudgetShare;
  /** Set when the method handler takes the call: from then on the pipeline counts its outcome. */
  handled: boolean;
}

export interface GrpcTraceService {
  interceptor: grpc.ServerInterceptor;
  implementation: grpc.UntypedServiceImplementation;
}

export function createGrpcTraceService(context: TraceExportContext, onInternalError: (error: unknown) => void): GrpcTraceService {
  const calls = new WeakMap<grpc.Metadata, CallState>();

  // grpc-js runs interceptors only for registered methods: this one.
  const interceptor: grpc.ServerInterceptor = (_method, nextCall) => {
    countRequest(context, "grpc");
    /** Set once the call's status is decided and counted by us; any other status is grpc-js's own. */
    let counted = false;
    let messageArrived = false;
    let statusSent = false;
    let state: CallState | null = null;
    let timer: NodeJS.Timeout | undefined;
    const stopTimer = () => clearTimeout(timer);
    /** Set while the call waits for its reservation; withdraws it. */
    let withdrawWait: (() => void) | null = null;
    let readStarted = false;
    const share = context.budget.share();
    const endCall = () => {
      stopTimer();
      withdrawWait?.();
      withdrawWait = null;
      share.release();
    };

    // grpc-js ends some calls itself (see above) through this method of its own call object, below every
    // interceptor; wrapping it is the one place that sees those statuses, to count them and word them per OTLP.
    const sendOwnStatus = nextCall.sendStatus.bind(nextCall);
    nextCall.sendStatus = (status) => {
      endCall();
      statusSent = true;
      if (counted || status.code === grpc.status.OK) return sendOwnStatus(status);
      counted = true;
      // A client that resets its stream (RST_STREAM) before its message ends the call in grpc-js as one without a
      // message ("Received no request message", before our onCancel): the client went away, it sent nothing
      // malformed — thousands of such calls are an HTTP/2 rapid reset, and must not read as broken exporters.
      // grpc-js says so only by the peer it reports: none once the stream is gone (Node detaches it on a reset).
      if (nextCall.getPeer() === "unknown") {
        refuse(context, "grpc", { reason: "clientAborted", rpcCode: RpcCode.unavailable, message: "the client reset the call" });
        return sendOwnStatus(status);
      }
      sendOwnStatus(countLibraryStatus(context, status));
    };
    const refuseCall = (refusal: ExportRefusal) => {
      counted = true;
      call.sendStatus({ code: refusal.rpcCode as grpc.status, details: refusal.message });
    };

    const call: grpc.ServerInterceptingCall = new grpc.ServerInterceptingCall(nextCall, {
      start(next) {
        // grpc-js has no bound on the time a client takes to send its message (only the client's own deadline).
        timer = setTimeout(() => {
          if (messageArrived || statusSent) return;
          // Still in line for its reservation: the receiver was busy all along, not the client slow.
          if (withdrawWait !== null) return refuseCall(refuse(context, "grpc", overBudget(context, `${overBudgetMessage} (the call waited ${context.requestTimeoutMs} ms, RAGSCOPE_REQUEST_TIMEOUT_MS, for its message to be read)`)));
          refuseCall(refuse(context, "grpc", { reason: "timedOut", rpcCode: RpcCode.unavailable, message: `the request message did not arrive within ${context.requestTimeoutMs} ms (RAGSCOPE_REQUEST_TIMEOUT_MS)` }));
        }, context.requestTimeoutMs);
        timer.unref();
        next({
          onReceiveMetadata(metadata, nextMetadata) {
            const authorization = metadata.get("authorization").find((value): value is string => typeof value === "string");
            const credential = authenticateExport(context, "grpc", authorization);
            if (!credential.ok) return refuseCall(credential.error);
            const refusal = admitExport(context, "grpc", "waits");
            if (refusal !== null) return refuseCall(refusal);
            state = { credential: credential.value, share, handled: false };
            calls.set(metadata, state);
            nextMetadata(metadata);
          },
          onReceiveMessage(message, nextMessage) {
            messageArrived = true;
            stopTimer();
            // The message's own size counts until the call is answered; the rest of the reservation goes to the next in line.
            share.keepOnly(Buffer.isBuffer(message) ? message.byteLength : 0);
            nextMessage(message);
          },
          onCancel() {
            endCall();
            // Cancelled before the message arrived, with no status sent: the client went away (or its deadline passed).
            // Once the handler has the call, the pipeline counts the outcome itself.
            if (!counted && !statusSent && state?.handled !== true) {
              counted = true;
              refuse(context, "grpc", { reason: "clientAborted", rpcCode: RpcCode.unavailable, message: "the client cancelled the call" });
            }
          },
        });
      },
      sendStatus(status, next) {
        // From the method handler: the pipeline counted it. Otherwise from grpc-js's unary glue (a call that
        // ended without its one message, or sent two), counted below as grpc-js's own.
        if (state?.handled === true) counted = true;
        next(status);
      },
    });
    // grpc-js's unary glue asks for the message once the metadata passed (and again for the end of the call):
    // the first read waits for the reservation.
    call.startRead = () => {
      if (readStarted || state === null) return nextCall.startRead();
      readStarted = true;
      const reservation = Math.min(context.maxBodyBytes, context.budget.limit);
      let reserved = false;
      const withdraw = context.budget.takeWhenAvailable(share, reservation, () => {
        reserved = true;
        withdrawWait = null;
        if (!statusSent) nextCall.startRead();
      });
      // Taken at once (the callback ran already), or in line until then.
      if (!reserved) withdrawWait = withdraw;
    };
    return call;
  };

  const exportTraces: grpc.handleUnaryCall<Buffer, Buffer> = (call, callback) => {
    const state = calls.get(call.metadata);
    if (state === undefined) {
      // Never expected: the interceptor admits every call that reaches the handler.
      refuse(context, "grpc", { reason: "internalError", rpcCode: RpcCode.internal, message: "internal error" });
      callback({ code: grpc.status.INTERNAL, details: "internal error" });
      return;
    }
    state.handled = true;
    const { share } = state;
    // The message's bytes were reserved before it was read (the interceptor); they count until the call is answered.
    exportTraceBody(context, "grpc", { body: call.request, encoding: "protobuf", credential: state.credential })
      .then((outcome) => {
        if (outcome.kind === "refused") callback({ code: outcome.refusal.rpcCode as grpc.status, details: outcome.refusal.message });
        else callback(null, Buffer.from(outcome.rejectedSpans === 0 ? encodeExportSuccess("protobuf") : encodeExportPartialSuccess("protobuf", outcome.rejectedSpans, outcome.message)));
      })
      .catch((error: unknown) => {
        refuse(context, "grpc", { reason: "internalError", rpcCode: RpcCode.internal, message: "internal error" });
        onInternalError(error);
        callback({ code: grpc.status.INTERNAL, details: "internal error" });
      })
      .finally(() => share.release());
  };

  return { interceptor, implementation: { Export: exportTraces } };
}

/**
 * A status grpc-js decided without us, counted under its reason and worded per OTLP: an undecodable
 * compressed message is the client's fault (INVALID_ARGUMENT, not retried), not the INTERNAL grpc-js says.
 */
function countLibraryStatus(context: TraceExportContext, status: CallStatus): CallStatus {
  const details = status.details ?? "";
  switch (status.code) {
    case grpc.status.RESOURCE_EXHAUSTED:
      refuse(context, "grpc", { reason: "payloadTooLarge", rpcCode: RpcCode.resourceExhausted, message: details });
      return { ...status, details: `${details}: the message must be at most ${context.maxBodyBytes} bytes, after decompression (RAGSCOPE_MAX_BODY_BYTES); send smaller batches` };
    case grpc.status.INTERNAL:
      refuse(context, "grpc", { reason: "malformed", rpcCode: RpcCode.invalidArgument, message: details });
      return { ...status, code: grpc.status.INVALID_ARGUMENT, details: `the request message could not be read (${details}): send an ExportTraceServiceRequest, gzip-compressed or not` };
    case grpc.status.UNIMPLEMENTED:
      // An unsupported grpc-encoding, or a call that did not carry exactly one message.
      if (/compressed with unsupported encoding/.test(details)) {
        refuse(context, "grpc", { reason: "unsupportedMediaType", rpcCode: RpcCode.unimplemented, message: details });
        return { ...status, details: `${details}: use gzip or no compression` };
      }
      refuse(context, "grpc", { reason: "malformed", rpcCode: RpcCode.invalidArgument, message: details });
      return { ...status, code: grpc.status.INVALID_ARGUMENT, details: `${details}: send exactly one ExportTraceServiceRequest` };
    default:
      refuse(context, "grpc", { reason: "clientAborted", rpcCode: RpcCode.unavailable, message: details });
      return status;
  }
}
