/**
 * `POST /v1/traces`: OTLP/HTTP's side of the receiver's one pipeline
 * (export-trace-request.ts): auth → content type → limits → read the body →
 * decode → split by trace id → publish → answer (DESIGN.md "Data flow";
 * shared/reference/interop.md §5).
 *
 * Decoding, the request limits, splitting and re-encoding run in a decode
 * thread (decode-pool.ts), so a large request does not stall other clients.
 * The body's bytes count against the shared in-flight budget until the
 * answer is sent.
 *
 * The answer is 200 only once the bus confirmed every message of the request;
 * when the bus is unavailable it is 503 with Retry-After, which OTLP clients retry.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { RpcCode } from "../00-otlp/otlp-export-response.js";
import type { OtlpEncoding } from "../00-otlp/otlp-encoding.js";
import type { Credential } from "./bearer-authorization.js";
import type { BudgetShare } from "./byte-budget.js";
import { admitExport, authenticateExport, exportTraceBody, overBudget, refuse, type ExportOutcome, type ReceivedBody, type TraceExportContext } from "./export-trace-request.js";
import type { ReceiverProtocol } from "./receiver-counters.js";
import { readRequestBody } from "./read-request-body.js";
import { encodingOfContentType, parseContentEncoding, type ContentEncoding } from "./request-encoding.js";
import { sendRefusal, sendSuccess } from "./send-answer.js";

export type { TraceExportContext } from "./export-trace-request.js";

/** What is done with a body once read: a trace export's (exportTraceBody) or a logs export's (export-log-request.ts). */
export type BodyExport = (context: TraceExportContext, protocol: ReceiverProtocol, received: ReceivedBody) => Promise<ExportOutcome>;

/** @param exportBody the signal's export step; the reading before it (auth, content type, limits, budget) is every signal's */
export async function handleTraceExport(request: IncomingMessage, response: ServerResponse, context: TraceExportContext, exportBody: BodyExport = exportTraceBody): Promise<void> {
  const declaredEncoding = encodingOfContentType(request.headers["content-type"]);
  // Before the content type is known to be OTLP's, failures are told in JSON.
  const answerEncoding = declaredEncoding ?? "json";

  const credential = authenticateExport(context, "http", request.headers.authorization);
  if (!credential.ok) {
    sendRefusal(request, response, answerEncoding, credential.error);
    return;
  }

  if (declaredEncoding === null) {
    sendRefusal(request, response, "json", refuse(context, "http", {
      reason: "unsupportedMediaType",
      rpcCode: RpcCode.invalidArgument,
      message: `unsupported content type ${JSON.stringify(request.headers["content-type"] ?? "")}: use application/x-protobuf or application/json`,
    }));
    return;
  }
  const encoding = declaredEncoding;

  const contentEncoding = parseContentEncoding(request.headers["content-encoding"]);
  if (contentEncoding === null) {
    sendRefusal(request, response, "json", refuse(context, "http", {
      reason: "unsupportedMediaType",
      rpcCode: RpcCode.invalidArgument,
      message: `unsupported content encoding ${JSON.stringify(request.headers["content-encoding"])}: use gzip or none`,
    }));
    return;
  }

  const share = context.budget.share();
  try {
    await receiveBody(request, response, context, encoding, contentEncoding, share, credential.value, exportBody);
  } finally {
    share.release();
  }
}

async function receiveBody(
  request: IncomingMessage,
  response: ServerResponse,
  context: TraceExportContext,
  encoding: OtlpEncoding,
  contentEncoding: ContentEncoding,
  share: BudgetShare,
  credential: Credential,
  exportBody: BodyExport,
): Promise<void> {
  const refusal = admitExport(context, "http");
  if (refusal !== null) {
    sendRefusal(request, response, encoding, refusal);
    return;
  }
  const body = await readRequestBody(request, { contentEncoding, maxBodyBytes: context.maxBodyBytes, budget: share, timeoutMs: context.requestTimeoutMs });
  if (!body.ok) {
    const { kind, message } = body.error;
    switch (kind) {
      case "timedOut":
        sendRefusal(request, response, encoding, refuse(context, "http", { reason: "timedOut", rpcCode: RpcCode.unavailable, message }));
        return;
      case "overBudget":
        sendRefusal(request, response, encoding, refuse(context, "http", overBudget(context, message)));
        return;
      case "aborted":
        // Nobody is left to answer.
        refuse(context, "http", { reason: "clientAborted", rpcCode: RpcCode.unavailable, message });
        return;
      case "tooLarge":
        sendRefusal(request, response, encoding, refuse(context, "http", { reason: "payloadTooLarge", rpcCode: RpcCode.resourceExhausted, message }));
        return;
      case "badCompression":
        sendRefusal(request, response, encoding, refuse(context, "http", { reason: "malformed", rpcCode: RpcCode.invalidArgument, message }));
        return;
    }
  }
  const outcome = await exportBody(context, "http", { body: body.value, encoding, credential });
  if (outcome.kind === "refused") sendRefusal(request, response, encoding, outcome.refusal);
  else sendSuccess(request, response, encoding, { rejectedSpans: outcome.rejectedSpans, message: outcome.message });
}
