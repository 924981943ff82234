/**
 * The UI on node:http (through @hono/node-server), in the process that owns
 * the store. Refuses a non-loopback address without a token.
 */
import type { AddressInfo } from "node:net";
import { getRequestListener } from "@hono/node-server";
import { createBoundedHttpServer, type ConnectionBounds } from "../core/bounded-http-server.js";
import { refusalFor, type UiAccess } from "./access/ui-access.js";
import { createUiApp, readersFor, type ScopableStore } from "./ui-app.js";
import { DEFAULT_TRACE_EVENTS, TraceEventsByScope, type TraceEventsOptions } from "./live/trace-events.js";

export interface UiServer {
  url: string;
  close(): Promise<void>;
}

export interface UiServerOptions {
  host: string;
  /** 0 picks a free port. */
  port: number;
  store: ScopableStore;
  access: UiAccess;
  now?: () => number;
  /** The live list's server-sent events: how often the newest trace is looked up, how many streams may be open. */
  traceEvents?: Partial<TraceEventsOptions>;
  /** A proxy serves the UI over HTTPS (RAGSCOPE_UI_BEHIND_TLS; access/session-cookie.ts). */
  behindTls?: boolean;
  /** Where an unexpected error's cause goes; stderr by default. */
  logError?: (line: string) => void;
}

const CLOSE_GRACE_MILLISECONDS = 2000;

/**
 * The UI's own connection bounds. The UI shares its process with the OTLP
 * receiver and the store: without them anyone who could reach the port — no
 * token needed to open a connection — held sockets until Node's defaults ran
 * out (60 s for headers, none on the count), and about a thousand idle
 * connections took the process to its open-file limit, where the receiver
 * stopped answering and serve exited (EMFILE). A few reviewers' browsers use
 * a handful of connections each, and live lists at most 32
 * (live/trace-events.ts). ui/README.md, Limits.
 */
export const UI_MAX_CONNECTIONS = 256;
/** Time a client has to send its request headers; then 408 and the connection is closed. */
export const UI_HEADERS_TIMEOUT_MILLISECONDS = 10_000;
/** Time a client has to send its whole request, a 20 MiB label import included. */
export const UI_REQUEST_TIMEOUT_MILLISECONDS = 60_000;
const UI_CONNECTION_BOUNDS: ConnectionBounds = { maxConnections: UI_MAX_CONNECTIONS, headersTimeoutMs: UI_HEADERS_TIMEOUT_MILLISECONDS, requestTimeoutMs: UI_REQUEST_TIMEOUT_MILLISECONDS };
export const DEFAULT_UI_HOST = "127.0.0.1";
export const DEFAULT_UI_PORT = 4000;

export async function startUiServer(options: UiServerOptions): Promise<UiServer> {
  const refusal = refusalFor(options.host, options.access);
  if (refusal !== null) throw new Error(refusal);
  const traceEvents = new TraceEventsByScope((scope) => readersFor(options.store, scope)!.traces, { ...DEFAULT_TRACE_EVENTS, ...options.traceEvents });
  const app = createUiApp({ store: options.store, access: options.access, now: options.now, traceEvents, behindTls: options.behindTls ?? false, ...(options.logError === undefined ? {} : { logError: options.logError }) });
  const server = createBoundedHttpServer(UI_CONNECTION_BOUNDS, getRequestListener(app.fetch, { hostname: options.host }));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        // Open event streams would hold the server open: end them first.
        traceEvents.close();
        // A browser left open keeps reconnecting or polling on keep-alive sockets, which would hold
        // the server open for ever: idle sockets go now, busy ones after a grace period for their answer.
        const grace = setTimeout(() => {
          server.closeAllConnections();
        }, CLOSE_GRACE_MILLISECONDS);
        grace.unref();
        server.close(() => {
          clearTimeout(grace);
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}
