/**
 * The collector's self-observation endpoint (one small node:http server per
 * process, default 127.0.0.1:9464):
 * - `GET /metrics` — the metrics registry in Prometheus text format;
 * - `GET /healthz` — 200 while the process runs (liveness): from before the
 *   roles start (the store's migrations can take minutes) to the end of the
 *   drain after SIGTERM, as the server is started first and closed last;
 * - `GET /readyz` — while starting, 503 naming the start's step; once the
 *   roles run, 200 when every readiness check passes (the Kafka consumer
 *   joined its group / the producer is connected, ClickHouse answers a
 *   ping), else 503 listing the failing checks; while draining, 503
 *   (service-phase.ts).
 *
 * Another method on one of them is 405 with `Allow: GET, HEAD`; any other path
 * is 404. Its connections are bounded as the receiver's and the UI's are
 * (core/bounded-http-server.ts; SECURITY.md, "Limits").
 */
import { createBoundedHttpServer, type ConnectionBounds } from "../../../core/bounded-http-server.js";
import type { MetricsRegistry } from "./metrics-registry.js";
import { listen } from "../../01-receive/listen.js";
import { answerReadiness, type ServicePhase } from "./service-phase.js";

/**
 * A scraper and a probe or two use a connection each. Kept well under the
 * receiver's and the UI's 256: `serve` holds all its ports in one process, and
 * their caps together must stay under a common open-file limit of 1024.
 */
export const METRICS_MAX_CONNECTIONS = 64;
/** Time to send the request headers, an idle connection's included; then 408 and the connection is closed. */
export const METRICS_HEADERS_TIMEOUT_MILLISECONDS = 10_000;
/** Its requests have no body: the whole request is its headers. */
export const METRICS_REQUEST_TIMEOUT_MILLISECONDS = 10_000;
export const METRICS_CONNECTION_BOUNDS: ConnectionBounds = { maxConnections: METRICS_MAX_CONNECTIONS, headersTimeoutMs: METRICS_HEADERS_TIMEOUT_MILLISECONDS, requestTimeoutMs: METRICS_REQUEST_TIMEOUT_MILLISECONDS };
const PATHS = new Set(["/metrics", "/healthz", "/readyz"]);
const ALLOWED_METHODS = "GET, HEAD";

export interface ReadinessCheck {
  name: string;
  /** null when ready, else why not. */
  check: () => Promise<string | null>;
}

export interface ObserveServerOptions {
  host: string;
  port: number;
  registry: MetricsRegistry;
  /** The checks of roles that already run; or `{ starting }`, the first step of a start still under way (then `ready` gives the checks). */
  readiness: readonly ReadinessCheck[] | { starting: string };
  /** Upper bound for one readiness check. */
  checkTimeoutMs?: number;
  /** METRICS_CONNECTION_BOUNDS when not given. */
  connectionBounds?: ConnectionBounds;
}

export interface ObserveServer {
  url: string;
  port: number;
  /** The start is at `step` now: /readyz answers 503 naming it. */
  starting(step: string): void;
  /** The roles run: /readyz answers their checks. */
  ready(checks: readonly ReadinessCheck[]): void;
  /** The process stops and writes what it holds: /readyz answers 503 "draining: `reason`", /healthz still 200. */
  drain(reason: string): void;
  close(): Promise<void>;
}

export async function runReadiness(checks: readonly ReadinessCheck[], timeoutMs: number): Promise<{ name: string; problem: string | null }[]> {
  return Promise.all(
    checks.map(async ({ name, check }) => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<string>((resolve) => {
        timer = setTimeout(() => resolve(`no answer within ${timeoutMs} ms`), timeoutMs);
      });
      try {
        return { name, problem: await Promise.race([check().catch((error: unknown) => (error instanceof Error ? error.message : String(error))), timeout]) };
      } finally {
        clearTimeout(timer);
      }
    }),
  );
}

export async function startObserveServer(options: ObserveServerOptions): Promise<ObserveServer> {
  const checkTimeoutMs = options.checkTimeoutMs ?? 2_000;
  let phase: ServicePhase = "starting" in options.readiness ? { kind: "starting", step: options.readiness.starting } : { kind: "running", checks: options.readiness };
  const server = createBoundedHttpServer(options.connectionBounds ?? METRICS_CONNECTION_BOUNDS, (request, response) => {
    const path = (request.url ?? "").split("?", 1)[0] ?? "";
    const send = (status: number, body: string, contentType = "text/plain; charset=utf-8", headers: Record<string, string> = {}) => {
      response.writeHead(status, { "content-type": contentType, "cache-control": "no-store", ...headers });
      response.end(body);
    };
    if (!PATHS.has(path)) return send(404, "not found: use /metrics, /healthz or /readyz\n");
    if (request.method !== "GET" && request.method !== "HEAD") return send(405, `method ${request.method ?? ""} not allowed on ${path}: use GET\n`, undefined, { allow: ALLOWED_METHODS });
    if (path === "/healthz") return send(200, "ok\n");
    if (path === "/metrics") return send(200, options.registry.render(), "text/plain; version=0.0.4; charset=utf-8");
    if (path === "/readyz") {
      answerReadiness(phase, (checks) => runReadiness(checks, checkTimeoutMs)).then(
        (answer) => send(answer.ready ? 200 : 503, answer.body),
        (error: unknown) => send(500, `readiness failed: ${String(error)}\n`),
      );
    }
  });
  const address = await listen(server, options.host, options.port, "metrics");
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    port: address.port,
    starting(step) {
      phase = { kind: "starting", step };
    },
    ready(checks) {
      phase = { kind: "running", checks };
    },
    drain(reason) {
      phase = { kind: "draining", reason };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
