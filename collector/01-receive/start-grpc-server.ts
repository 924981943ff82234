/**
 * The OTLP/gRPC trace receiver's server (grpc-trace-service.ts): plaintext
 * HTTP/2 on the receiver's host, beside the OTLP/HTTP server and sharing its
 * pipeline, token check, byte budget, decode threads and counters.
 *
 * A message is bounded by `grpc.max_receive_message_length`, set to the same
 * body bound as OTLP/HTTP (RAGSCOPE_MAX_BODY_BYTES); grpc-js applies it to the
 * message as received and again after gzip, and answers RESOURCE_EXHAUSTED
 * past it.
 *
 * Its memory is bounded as the HTTP server's is (SECURITY.md "Limits"): the
 * messages share the byte budget (grpc-trace-service.ts); connections are
 * capped at RAGSCOPE_MAX_CONNECTIONS by a net.Server of our own that hands
 * each socket to grpc-js (grpc-js has no such bound; more are closed as they
 * arrive, and the client sees UNAVAILABLE); each connection carries at most
 * `maxCallsPerConnection` calls at once (HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS:
 * a client queues more, or has them refused), so calls waiting to be read hold
 * no more than their metadata each; and a connection with no call open is
 * closed after `idleConnectionMs`, so a client that connects and sends nothing
 * does not keep a connection from others.
 *
 * The server also pings each connection every `keepalive.timeMs` and closes one
 * that has not answered within `keepalive.timeoutMs` (grpc-js's keepalive). A
 * connection Node's HTTP/2 layer gave up on — nghttp2 answers a client that
 * resets streams faster than it allows (HTTP/2 rapid reset, CVE-2023-44487)
 * with GOAWAY and stops reading it — is otherwise never closed, not even once
 * its client has gone (Node is not told, nor grpc-js): each one held a place
 * among RAGSCOPE_MAX_CONNECTIONS for good, so that many such connections (a
 * few thousand frames) closed the gRPC port until the process restarted. The ping is never answered
 * there, and the connection is closed; so is one whose client stopped
 * answering, or never sent HTTP/2's preface.
 */
import net from "node:net";
import grpc from "@grpc/grpc-js";
import { listen } from "./listen.js";
import { createGrpcTraceService, traceServiceDefinition } from "./grpc-trace-service.js";
import type { TraceExportContext } from "./export-trace-request.js";

/** Calls one connection may carry at once: the HTTP/2 specification's recommended least, and more than an exporter sends in parallel. */
export const maxCallsPerConnection = 100;

/** A connection with no call open this long is closed (GOAWAY); exporters reconnect when they next send. */
export const idleConnectionMs = 5 * 60_000;

/** How often each connection is pinged, and how long its answer may take before the connection is closed. */
export interface GrpcKeepalive {
  timeMs: number;
  timeoutMs: number;
}

/** A dead connection is closed within 50 s; a ping every 30 s is 17 bytes each way, nothing to a live one. */
export const defaultGrpcKeepalive: GrpcKeepalive = { timeMs: 30_000, timeoutMs: 20_000 };

export interface RunningGrpcServer {
  /** e.g. `http://127.0.0.1:4317`, as an OTLP/gRPC exporter's endpoint is written. */
  url: string;
  port: number;
  /** Takes no new calls, lets calls in flight finish, and ends whatever is left after `drainTimeoutMs`. */
  close(drainTimeoutMs: number): Promise<void>;
}

export async function startGrpcServer(options: {
  host: string;
  port: number;
  context: TraceExportContext;
  /** Open connections; more are closed as they arrive. */
  maxConnections: number;
  /** Told of each connection closed on arrival. */
  onConnectionDropped: () => void;
  /** A connection with no call open this long is closed; `idleConnectionMs` when not given. */
  idleTimeoutMs?: number;
  /** `defaultGrpcKeepalive` when not given. */
  keepalive?: GrpcKeepalive;
  onInternalError: (error: unknown) => void;
}): Promise<RunningGrpcServer> {
  // grpc-js prints its own errors to stderr (a port in use as "E No address added out of total 1 resolved"); each
  // one that matters reaches us as a value and is told once, in our words. GRPC_VERBOSITY still shows them.
  if (process.env.GRPC_VERBOSITY === undefined) grpc.setLogVerbosity(grpc.logVerbosity.NONE);
  const service = createGrpcTraceService(options.context, options.onInternalError);
  const server = new grpc.Server({
    interceptors: [service.interceptor],
    "grpc.max_receive_message_length": options.context.maxBodyBytes,
    "grpc.max_concurrent_streams": maxCallsPerConnection,
    "grpc.max_connection_idle_ms": options.idleTimeoutMs ?? idleConnectionMs,
    "grpc.keepalive_time_ms": (options.keepalive ?? defaultGrpcKeepalive).timeMs,
    "grpc.keepalive_timeout_ms": (options.keepalive ?? defaultGrpcKeepalive).timeoutMs,
  });
  server.addService(traceServiceDefinition, service.implementation);
  // grpc-js's own listener has no bound on connections: ours has, and hands grpc-js each socket it keeps.
  const injector = server.createConnectionInjector(grpc.ServerCredentials.createInsecure());
  // The sockets handed over: grpc-js's shutdown waits for a listening server of its own to drain, but not for injected
  // connections (a call whose client never ended its side keeps one open), so closing waits for these, then ends them.
  const sockets = new Set<net.Socket>();
  const listener = net.createServer((socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
    injector.injectConnection(socket);
  });
  listener.maxConnections = options.maxConnections;
  listener.on("drop", options.onConnectionDropped);
  const address = await listen(listener, options.host, options.port, "grpc");
  const port = address.port;
  // An IPv6 literal is written in brackets, as in a URL.
  const hostForAddress = options.host.includes(":") && !options.host.startsWith("[") ? `[${options.host}]` : options.host;
  let closing: Promise<void> | null = null;
  return {
    url: `http://${hostForAddress}:${port}`,
    port,
    close(drainTimeoutMs) {
      closing ??= new Promise<void>((resolve) => {
        let settled = false;
        const settle = () => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          server.forceShutdown();
          for (const socket of sockets) socket.destroy();
          settle();
        }, drainTimeoutMs);
        timer.unref();
        // No new connections; grpc-js asks the ones it was handed to close once their calls end (GOAWAY).
        listener.close();
        let shutDown = false;
        const settleOnceDrained = () => {
          if (shutDown && sockets.size === 0) settle();
        };
        for (const socket of sockets) socket.once("close", settleOnceDrained);
        server.tryShutdown(() => {
          shutDown = true;
          settleOnceDrained();
        });
      });
      return closing;
    },
  };
}
