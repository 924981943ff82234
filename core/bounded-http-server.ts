/**
 * The one way ragscope makes an HTTP server: the OTLP receiver, the web UI and
 * the metrics port each call it with their own bounds. Without them a port held
 * whatever anyone who could reach it opened — Node's defaults put no bound on
 * the count and give 60 s to send the headers, checked every 30 s — so idle or
 * byte-by-byte connections took the process to its open-file limit, where every
 * port of `serve` stopped answering (SECURITY.md, "Limits").
 */
import http from "node:http";

export interface ConnectionBounds {
  /** Open connections; past it a connection is closed as it arrives, before it is read. */
  maxConnections: number;
  /** Time to send the request headers, an idle connection's first request included; then 408 and the connection is closed. */
  headersTimeoutMs: number;
  /** Time to send the whole request; then 408 and the connection is closed. */
  requestTimeoutMs: number;
}

export function createBoundedHttpServer(bounds: ConnectionBounds, listener: http.RequestListener): http.Server {
  const server = http.createServer(
    {
      requestTimeout: bounds.requestTimeoutMs,
      // Node refuses to start with headers given longer than the whole request.
      headersTimeout: Math.min(bounds.headersTimeoutMs, bounds.requestTimeoutMs),
      // Node checks the two timeouts only this often (30 s by default): a 10 s bound would hold a connection up to 40 s.
      connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(bounds.headersTimeoutMs / 4))),
    },
    listener,
  );
  server.maxConnections = bounds.maxConnections;
  return server;
}
