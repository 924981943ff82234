/**
 * The OTLP trace receiver: a plain node:http server with one route,
 * `POST /v1/traces` (shared/reference/interop.md §5), and, when a gRPC port is
 * given, an OTLP/gRPC server beside it (start-grpc-server.ts) that shares its
 * pipeline, byte budget, decode threads and counters.
 *
 * It must outlive every client: a bad request gets its 4xx and the server goes
 * on; a client that disconnects mid-body is counted and forgotten; an
 * unexpected exception while handling one request is answered 500 and reported
 * through `onInternalError`, never thrown out of the request handler.
 *
 * Its memory and time are bounded per client and in all (SECURITY.md
 * "Limits"): open connections are capped (more are closed as they arrive),
 * a client has `requestTimeoutMs` to send its whole request (408 past it),
 * decompressed bodies share one byte budget, and decoding runs in a small
 * pool of threads.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { createBoundedHttpServer } from "../../core/bounded-http-server.js";
import type { TracePublisher } from "../02-transport/trace-bus.js";
import { RpcCode } from "../00-otlp/otlp-export-response.js";
import { createBearerAuthorization } from "./bearer-authorization.js";
import { exportLogBody } from "./export-log-request.js";
import { handleTraceExport, type TraceExportContext } from "./handle-trace-export.js";
import { createReceiverCounters, type ReceiverCounters } from "./receiver-counters.js";
import { encodingOfContentType } from "./request-encoding.js";
import { sendFailure } from "./send-answer.js";
import { listen } from "./listen.js";
import { ByteBudget } from "./byte-budget.js";
import { DecodePool } from "./decode-pool.js";
import type { RequestLimits } from "../00-otlp/enforce-request-limits.js";
import { DEFAULT_MAX_ATTRIBUTE_KEY_BYTES, DEFAULT_MAX_ATTRIBUTES_PER_SPAN, DEFAULT_MAX_EVENTS_PER_SPAN, DEFAULT_MAX_LINKS_PER_SPAN, DEFAULT_MAX_NAME_BYTES } from "../00-otlp/per-span-bounds.js";
import { DEFAULT_MAX_ITEMS_PER_REQUEST } from "../00-otlp/count-request-items.js";
import { latestSpanTimeNanos } from "../00-otlp/reject-future-spans.js";
import { startGrpcServer, type GrpcKeepalive, type RunningGrpcServer } from "./start-grpc-server.js";

/** The limit OTLP recommends for a decompressed body (§5). */
export const defaultMaxBodyBytes = 64 * 1024 * 1024;

export const tracesPath = "/v1/traces";
/** OTLP logs: events of spans (export-log-request.ts), joined to them by the assembler that reads the trace. */
export const logsPath = "/v1/logs";

/** The receiver's bounds when none are given (the defaults of collector-config.ts). */
export const defaultReceiverBounds = {
  maxInFlightBytes: 128 * 1024 * 1024,
  maxConnections: 256,
  requestTimeoutMs: 30_000,
  headersTimeoutMs: 10_000,
  decodeThreads: 2,
  maxFutureSpanSeconds: 3_600,
  limits: {
    maxSpansPerRequest: 100_000,
    maxSpansPerTrace: 10_000,
    maxAttributesPerSpan: DEFAULT_MAX_ATTRIBUTES_PER_SPAN,
    maxAttributeValueBytes: 1024 * 1024,
    maxAttributeKeyBytes: DEFAULT_MAX_ATTRIBUTE_KEY_BYTES,
    maxEventsPerSpan: DEFAULT_MAX_EVENTS_PER_SPAN,
    maxLinksPerSpan: DEFAULT_MAX_LINKS_PER_SPAN,
    maxItemsPerRequest: DEFAULT_MAX_ITEMS_PER_REQUEST,
    maxNameBytes: DEFAULT_MAX_NAME_BYTES,
  } satisfies RequestLimits,
};

export interface ReceiverOptions {
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** The OTLP/gRPC port on the same host (0 picks a free one); absent or null: no gRPC server. */
  grpcPort?: number | null;
  /** Largest body accepted after decompression; 64 MiB when not given. */
  maxBodyBytes?: number;
  /** Bearer tokens that may export; when empty or absent, no token is asked for. */
  authTokens?: readonly string[];
  /** Tenant → SHA-256 of its bearer token (SECURITY.md "Tenants"); a request's tenant then comes from its token. */
  tenantTokens?: Readonly<Record<string, string>>;
  publisher: TracePublisher;
  /** Seconds of Retry-After on a 503 when the bus gives no delay; 1 when not given. */
  defaultRetryAfterSeconds?: number;
  /** Decompressed body bytes all requests may hold at once; past it 503 with Retry-After. */
  maxInFlightBytes?: number;
  /** Open connections; more are closed as they arrive. */
  maxConnections?: number;
  /** Time to receive a whole request (Node's default is 300 s). */
  requestTimeoutMs?: number;
  /** Time to receive the request headers. */
  headersTimeoutMs?: number;
  /** Threads decoding request bodies. */
  decodeThreads?: number;
  /** Each decode thread's young generation in MiB (decode-pool.ts); V8's default when not given. */
  decodeThreadYoungGenerationMb?: number;
  limits?: RequestLimits;
  /** Seconds a span's start or end may lie after the clock; later spans are rejected (reject-future-spans.ts). 3,600 when not given. */
  maxFutureSpanSeconds?: number;
  /** The clock, Unix milliseconds (Date.now when not given). */
  now?: () => number;
  /** How often the gRPC server pings each connection and how long an answer may take (start-grpc-server.ts); its default when not given. */
  grpcKeepalive?: GrpcKeepalive;
  /** Told about bugs (exceptions) met while handling a request; they are logged to stderr when not given. */
  onInternalError?: (error: unknown) => void;
}

export interface RunningReceiver {
  /** Base URL, e.g. `http://127.0.0.1:4318`; traces go to `${url}/v1/traces`. */
  url: string;
  port: number;
  /** The OTLP/gRPC endpoint, e.g. `http://127.0.0.1:4317`; null when gRPC is off. */
  grpcUrl: string | null;
  grpcPort: number | null;
  counters: ReceiverCounters;
  /**
   * Stops taking connections and resolves once requests in flight are answered; gRPC calls still
   * running after the request timeout are ended then.
   */
  close(): Promise<void>;
}

export async function startReceiver(options: ReceiverOptions): Promise<RunningReceiver> {
  const maxBodyBytes = options.maxBodyBytes ?? defaultMaxBodyBytes;
  if (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes <= 0) {
    throw new RangeError(`maxBodyBytes must be a positive integer, got ${maxBodyBytes}`);
  }
  const maxInFlightBytes = options.maxInFlightBytes ?? Math.max(defaultReceiverBounds.maxInFlightBytes, maxBodyBytes);
  const requestTimeoutMs = options.requestTimeoutMs ?? defaultReceiverBounds.requestTimeoutMs;
  const headersTimeoutMs = Math.min(options.headersTimeoutMs ?? defaultReceiverBounds.headersTimeoutMs, requestTimeoutMs);
  const counters = createReceiverCounters();
  const now = options.now ?? Date.now;
  const maxFutureSpanSeconds = options.maxFutureSpanSeconds ?? defaultReceiverBounds.maxFutureSpanSeconds;
  const authTokens = options.authTokens ?? [];
  const tenantTokens = options.tenantTokens ?? {};
  const decoders = new DecodePool(options.decodeThreads ?? defaultReceiverBounds.decodeThreads, options.decodeThreadYoungGenerationMb);
  const context: TraceExportContext = {
    budget: new ByteBudget(maxInFlightBytes),
    limits: options.limits ?? defaultReceiverBounds.limits,
    decoders,
    requestTimeoutMs,
    publisher: options.publisher,
    maxBodyBytes,
    authorization: authTokens.length > 0 || Object.keys(tenantTokens).length > 0 ? createBearerAuthorization({ tokens: authTokens, tenantTokens }) : null,
    counters,
    defaultRetryAfterSeconds: options.defaultRetryAfterSeconds ?? 1,
    latestSpanTimeNanos: () => latestSpanTimeNanos(now(), maxFutureSpanSeconds),
    maxFutureSpanSeconds,
  };
  const onInternalError =
    options.onInternalError ?? ((error: unknown) => console.error("ragscope receiver: internal error", error));

  const server = createBoundedHttpServer(
    { maxConnections: options.maxConnections ?? defaultReceiverBounds.maxConnections, requestTimeoutMs, headersTimeoutMs },
    (request, response) => {
      handleRequest(request, response, context).catch((error: unknown) => {
        counters.rejected.internalError += 1;
        onInternalError(error);
        sendFailure(request, response, encodingOfContentType(request.headers["content-type"]) ?? "json", {
          httpStatus: 500,
          rpcCode: RpcCode.internal,
          message: "internal error",
        });
      });
    },
  );
  server.on("drop", () => {
    counters.connectionsDropped += 1;
  });

  let address;
  try {
    address = await listen(server, options.host, options.port, "receiver");
  } catch (error) {
    await decoders.close();
    throw error;
  }
  const hostForUrl = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const closeHttp = () =>
    new Promise<void>((resolve, reject) => {
      server.close((error) => (error ? reject(error) : resolve()));
      // Keep-alive connections with no request in flight would hold close() open.
      server.closeIdleConnections();
    });

  let grpcServer: RunningGrpcServer | null = null;
  if (options.grpcPort !== undefined && options.grpcPort !== null) {
    try {
      grpcServer = await startGrpcServer({
        host: options.host,
        port: options.grpcPort,
        context,
        // Each server has its own cap: HTTP connections do not crowd out gRPC ones, nor the reverse.
        maxConnections: server.maxConnections,
        onConnectionDropped: () => (counters.connectionsDropped += 1),
        ...(options.grpcKeepalive === undefined ? {} : { keepalive: options.grpcKeepalive }),
        onInternalError,
      });
    } catch (error) {
      await closeHttp();
      await decoders.close();
      throw error;
    }
  }

  let closing: Promise<void> | null = null;
  return {
    url: `http://${hostForUrl}:${address.port}`,
    port: address.port,
    grpcUrl: grpcServer?.url ?? null,
    grpcPort: grpcServer?.port ?? null,
    counters,
    close() {
      closing ??= Promise.all([closeHttp(), grpcServer?.close(requestTimeoutMs)]).then(() => {}).finally(() => decoders.close());
      return closing;
    },
  };
}

async function handleRequest(request: IncomingMessage, response: ServerResponse, context: TraceExportContext): Promise<void> {
  const { counters } = context;
  counters.requests += 1;
  // A client that resets the connection makes these streams emit "error";
  // unheard, that would end the process. readRequestBody notices it via "close".
  request.on("error", () => {});
  response.on("error", () => {});

  const path = (request.url ?? "").split("?", 1)[0];
  const encoding = encodingOfContentType(request.headers["content-type"]) ?? "json";
  if (path !== tracesPath && path !== logsPath) {
    counters.rejected.notFound += 1;
    sendFailure(request, response, encoding, {
      httpStatus: 404,
      rpcCode: RpcCode.notFound,
      message: `no such path ${JSON.stringify(path)}: traces go to POST ${tracesPath}`,
    });
    return;
  }
  if (request.method !== "POST") {
    counters.rejected.methodNotAllowed += 1;
    sendFailure(request, response, encoding, {
      httpStatus: 405,
      rpcCode: RpcCode.unimplemented,
      message: `method ${request.method ?? ""} not allowed on ${path}: use POST`,
      headers: { allow: "POST" },
    });
    return;
  }
  await handleTraceExport(request, response, context, path === logsPath ? exportLogBody : undefined);
}
