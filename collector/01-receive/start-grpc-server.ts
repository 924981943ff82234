/**
 * The OTLP/gRPC trace receiver's server (grpc-trace-service.ts): plaintext
 * HTTP/2 (h2c, as gRPC clients speak it without TLS) on the receiver's host,
 * beside the OTLP/HTTP server and sharing its pipeline, token check, byte
 * budget, decode threads and counters.
 *
 * Its memory is bounded as the HTTP server's is (SECURITY.md "Limits"): a
 * call's message takes from the byte budget as its bytes arrive
 * (read-grpc-message.ts), its declared length checked first against
 * RAGSCOPE_MAX_BODY_BYTES; connections are capped at RAGSCOPE_MAX_CONNECTIONS
 * by the listener (more are closed as they arrive: the client sees
 * UNAVAILABLE); each connection carries at most `maxCallsPerConnection` calls
 * at once (HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS: a client queues more); and
 * a connection with no frame for `idleConnectionMs` is closed, so a client
 * that connects and sends nothing does not keep a connection from others.
 *
 * The server also pings each connection every `keepalive.timeMs` and closes
 * one that has not answered within `keepalive.timeoutMs`. A connection Node's
 * HTTP/2 layer gave up on — nghttp2 answers a client that resets streams
 * faster than it allows (HTTP/2 rapid reset, CVE-2023-44487) with GOAWAY and
 * stops reading it — is otherwise never closed, not even once its client has
 * gone (Node is not told): each one would hold a place among
 * RAGSCOPE_MAX_CONNECTIONS for good. The ping is never answered there, and
 * the connection is closed; so is one whose client stopped answering, or
 * never sent HTTP/2's preface.
 */
import http2 from "node:http2";
import net from "node:net";
import { listen } from "./listen.js";
import { serveGrpcStream } from "./grpc-trace-service.js";
import type { TraceExportContext } from "./export-trace-request.js";

/** Calls one connection may carry at once: the HTTP/2 specification's recommended least, and more than an exporter sends in parallel. */
export const maxCallsPerConnection = 100;

/** A connection with no frame this long is closed (GOAWAY); exporters reconnect when they next send. */
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

/** Pings the connection every `keepalive.timeMs`; closes it when an answer takes longer than `keepalive.timeoutMs`. */
function keepAlive(session: http2.ServerHttp2Session, keepalive: GrpcKeepalive): void {
  let answerDue: NodeJS.Timeout | undefined;
  const interval = setInterval(() => {
    if (session.destroyed || answerDue !== undefined) return;
    answerDue = setTimeout(() => session.destroy(), keepalive.timeoutMs);
    answerDue.unref();
    try {
      session.ping((error) => {
        clearTimeout(answerDue);
        answerDue = undefined;
        if (error !== null) session.destroy();
      });
    } catch {
      // The session is closing or has not finished its handshake: the timer above decides.
    }
  }, keepalive.timeMs);
  interval.unref();
  session.once("close", () => {
    clearInterval(interval);
    clearTimeout(answerDue);
  });
}

export async function startGrpcServer(options: {
  host: string;
  port: number;
  context: TraceExportContext;
  /** Open connections; more are closed as they arrive. */
  maxConnections: number;
  /** Told of each connection closed on arrival. */
  onConnectionDropped: () => void;
  /** A connection with no frame this long is closed; `idleConnectionMs` when not given. */
  idleTimeoutMs?: number;
  /** `defaultGrpcKeepalive` when not given. */
  keepalive?: GrpcKeepalive;
  onInternalError: (error: unknown) => void;
}): Promise<RunningGrpcServer> {
  const keepalive = options.keepalive ?? defaultGrpcKeepalive;
  const server = http2.createServer({ settings: { maxConcurrentStreams: maxCallsPerConnection } });
  server.on("stream", (stream, headers) => serveGrpcStream(options.context, stream, headers, options.onInternalError));
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on("session", (session) => {
    sessions.add(session);
    session.once("close", () => sessions.delete(session));
    // A protocol error ends the session; it is the client's, and the server goes on.
    session.on("error", () => {});
    session.setTimeout(options.idleTimeoutMs ?? idleConnectionMs, () => session.close());
    keepAlive(session, keepalive);
  });
  // The listener bounds connections (node:http2 has no such bound) and hands each one it keeps to the HTTP/2 server.
  const sockets = new Set<net.Socket>();
  const listener = net.createServer((socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
    server.emit("connection", socket);
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
        const done = () => {
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          for (const socket of sockets) socket.destroy();
          done();
        }, drainTimeoutMs);
        timer.unref();
        // No new connections; each open one is told (GOAWAY) and closes once its calls are answered.
        listener.close();
        for (const session of sessions) session.close();
        const closeWhenDrained = () => {
          if (sockets.size === 0) done();
        };
        for (const socket of sockets) socket.once("close", closeWhenDrained);
        closeWhenDrained();
      });
      return closing;
    },
  };
}
