/**
 * The SDK's export writer: posts batches of spans to an OTLP/HTTP traces
 * endpoint (protobuf or JSON), several at once, over kept-alive connections,
 * and can abort every request in flight.
 *
 * Why not @opentelemetry/exporter-trace-otlp-http/-proto's exporter: its
 * requests cannot be cancelled. Its shutdown waits for every export in flight
 * to end — with a collector that accepts connections and never answers, that
 * is the export timeout (10 s) plus its retries, 10–21 s measured — and the
 * open request keeps the process alive that long. Here every request carries
 * an AbortController: `abort()` (the processor's shutdown deadline) ends them
 * at once and they count as failed. JSON is encoded by OTel's own serializer
 * (@opentelemetry/otlp-transformer, what that exporter uses); protobuf by
 * otlp-protobuf-encoder.ts, which writes the same bytes in less time.
 *
 * Retries follow the OTLP/HTTP specification ("Retryable Response Codes"):
 * 429, 502, 503 and 504, and a connection that could not be made or was
 * reset, are retried after Retry-After (or an exponential backoff with
 * jitter) while the export's time allows; anything else fails at once.
 *
 * A failed export says what the collector answered and what to do, never only
 * that time ran out: a receiver answering 503 (its queue full, its Kafka
 * down) to every retry used to be reported as "no answer within 10000 ms",
 * which sent people looking for a network problem. A Retry-After that would
 * fall past the export timeout ends the export at once, with that answer,
 * instead of waiting for the timeout to say less.
 */
import http from "node:http";
import https from "node:https";
import { ExportResultCode, type ExportResult } from "@opentelemetry/core";
import { JsonTraceSerializer } from "@opentelemetry/otlp-transformer";
import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace-base";
import { RAGSCOPE_SDK_VERSION } from "../version.js";
import { encodeTraceRequest } from "./otlp-protobuf-encoder.js";
import { adviceForConnectionError, adviceForStatus, failureMessage, partialSuccess, type PartialSuccess } from "./otlp-failure-answer.js";

export interface OtlpHttpWriterOptions {
  /** Full URL of the traces endpoint (`…/v1/traces`). */
  url: string;
  protocol: "http/protobuf" | "http/json";
  headers?: Record<string, string>;
  /** Time one export (all its attempts) may take; then it is aborted and fails. */
  timeoutMillis: number;
  /** Requests open at once (the agent's sockets); the processor keeps as many exports in flight. */
  maxSockets: number;
}

/** A span exporter whose exports in flight can be ended at once (the processor's shutdown deadline). */
export interface AbortableSpanExporter extends SpanExporter {
  /** Ends every export in flight; each reports failure with `reason`. */
  abort(reason: string): void;
  /** From now on a connection that cannot be made fails its export at once (shutdown: the collector is down). */
  stopRetryingConnections(): void;
  /**
   * Hears each answer that is about to be retried (what the collector said and
   * what to do), so a deadline that ends the retries can say why the spans
   * were not taken, not only that time ran out.
   */
  onRetry?(listener: (answer: string) => void): void;
}

export function isAbortable(exporter: SpanExporter): exporter is AbortableSpanExporter {
  return typeof (exporter as Partial<AbortableSpanExporter>).abort === "function";
}

const RETRIABLE_STATUSES = new Set([429, 502, 503, 504]);
const FIRST_BACKOFF_MS = 100;
const MAX_BACKOFF_MS = 5_000;

/** `message` says what happened ("the collector answered HTTP 503 (…)"); `advice` what to do about it, or "". */
type AttemptOutcome = { kind: "success"; partial: PartialSuccess | null } | { kind: "retry"; afterMs: number | null; message: string; advice: string } | { kind: "fail"; message: string; advice: string };

/** Why an export ended without success, from its last outcome and how it ended. */
interface ExportEnd {
  /** The last retriable answer or connection failure, and how many attempts had one. */
  last: { message: string; advice: string } | null;
  attempts: number;
}

export class OtlpHttpWriter implements AbortableSpanExporter {
  private readonly url: URL;
  private readonly agent: http.Agent;
  private readonly send: typeof http.request;
  private readonly headers: Record<string, string>;
  private readonly encode: (spans: ReadableSpan[]) => Uint8Array | undefined;
  private readonly inFlight = new Set<AbortController>();
  private stopped = false;
  private retryConnections = true;
  private retryListener: ((answer: string) => void) | undefined;
  private sizeHint = 64 * 1024;

  constructor(private readonly options: OtlpHttpWriterOptions) {
    this.url = new URL(options.url);
    const secure = this.url.protocol === "https:";
    // Kept-alive sockets: a connection per export would cost a handshake each
    // (and TIME_WAIT sockets by the thousand at full rate). Idle sockets do not
    // keep the process alive (the agent unrefs them).
    const agentOptions = { keepAlive: true, maxSockets: options.maxSockets, maxFreeSockets: options.maxSockets };
    this.agent = secure ? new https.Agent(agentOptions) : new http.Agent(agentOptions);
    this.send = secure ? https.request : http.request;
    const json = options.protocol === "http/json";
    this.encode = json ? (spans) => JsonTraceSerializer.serializeRequest(spans) : (spans) => {
          // Sized like the last request, so the buffer rarely grows (each growth copies it).
          const body = encodeTraceRequest(spans, this.sizeHint);
          this.sizeHint = Math.max(64 * 1024, Math.ceil(body.byteLength * 1.25));
          return body;
        };
    this.headers = {
      "user-agent": `ragscope-sdk/${RAGSCOPE_SDK_VERSION}`,
      ...options.headers,
      "content-type": json ? "application/json" : "application/x-protobuf",
    };
  }

  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    if (this.stopped) {
      resultCallback({ code: ExportResultCode.FAILED, error: new Error("the exporter is shut down") });
      return;
    }
    let body: Uint8Array | undefined;
    try {
      body = this.encode(spans);
    } catch (error) {
      resultCallback({ code: ExportResultCode.FAILED, error: new Error(`the spans could not be encoded: ${String(error)}`) });
      return;
    }
    if (body === undefined) {
      resultCallback({ code: ExportResultCode.FAILED, error: new Error("the spans could not be encoded") });
      return;
    }
    const controller = new AbortController();
    this.inFlight.add(controller);
    // The abort waits for one turn of I/O after the timer: when the application
    // held the event loop past the timeout, an answer that arrived meanwhile is
    // read first (timers run before I/O in a turn) instead of counted as none.
    const timedOut = new Error(`no answer within ${this.options.timeoutMillis} ms`);
    const timeout = setTimeout(() => setImmediate(() => controller.abort(timedOut)), this.options.timeoutMillis);
    timeout.unref();
    void this.exportWithRetries(body, controller.signal, timedOut, Date.now() + this.options.timeoutMillis)
      .then((outcome) =>
        resultCallback(
          typeof outcome === "string"
            ? { code: ExportResultCode.FAILED, error: new Error(outcome) }
            : // Some spans refused in an accepted request: the processor counts them as lost and says why.
              { code: ExportResultCode.SUCCESS, ...(outcome.partial === null ? {} : { error: outcome.partial }) },
        ),
      )
      .finally(() => {
        clearTimeout(timeout);
        this.inFlight.delete(controller);
      });
  }

  stopRetryingConnections(): void {
    this.retryConnections = false;
  }

  onRetry(listener: (answer: string) => void): void {
    this.retryListener = listener;
  }

  abort(reason: string): void {
    for (const controller of this.inFlight) controller.abort(new Error(reason));
  }

  async shutdown(): Promise<void> {
    this.stopped = true;
    this.abort("the exporter was shut down");
    this.agent.destroy();
  }

  async forceFlush(): Promise<void> {}

  /** The success (with the spans the collector refused in it, if any), else why the export failed. */
  private async exportWithRetries(body: Uint8Array, signal: AbortSignal, timedOut: Error, deadline: number): Promise<{ partial: PartialSuccess | null } | string> {
    const end: ExportEnd = { last: null, attempts: 0 };
    for (let attempt = 0; ; attempt += 1) {
      const outcome = await this.attempt(body, signal);
      if (outcome.kind === "success") return { partial: outcome.partial };
      if (signal.aborted) return this.givenUp(signal, timedOut, end);
      if (outcome.kind === "fail") return withAdvice(outcome.message, outcome.advice);
      end.last = { message: outcome.message, advice: outcome.advice };
      end.attempts += 1;
      this.retryListener?.(withAdvice(outcome.message, outcome.advice));
      const backoff = Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** attempt) * (0.5 + Math.random() / 2);
      if (outcome.afterMs !== null && Date.now() + outcome.afterMs > deadline) {
        // The collector asked for a wait the export's time does not have: waiting would only end in the timeout.
        // Said as what happens to the spans and what to change, not only where the wait falls.
        const attempts = end.attempts === 1 ? "1 attempt" : `${end.attempts} attempts`;
        return withAdvice(
          `${outcome.message} (${attempts}); retrying after the server's Retry-After of ${formatSeconds(outcome.afterMs)} would pass this export's deadline (${this.options.timeoutMillis} ms after it started), so the batch is dropped and counted as failed — to wait that long, raise OTEL_BSP_EXPORT_TIMEOUT (exportTimeoutMillis)`,
          outcome.advice,
        );
      }
      const waited = await sleep(outcome.afterMs ?? backoff, signal);
      if (!waited) return this.givenUp(signal, timedOut, end);
    }
  }

  /** Why an export that was aborted failed: the collector's last answer when it had one, not only that time ran out. */
  private givenUp(signal: AbortSignal, timedOut: Error, end: ExportEnd): string {
    const attempts = end.attempts === 1 ? "1 attempt" : `${end.attempts} attempts`;
    if (signal.reason === timedOut) {
      if (end.last === null) return withAdvice(timedOut.message, "the collector took the connection and did not answer: check that it is not overloaded or stalled");
      return withAdvice(`${end.last.message} (${attempts} within the export timeout of ${this.options.timeoutMillis} ms, OTEL_BSP_EXPORT_TIMEOUT)`, end.last.advice);
    }
    const reason = reasonOf(signal, "aborted");
    return end.last === null ? reason : withAdvice(`${reason}; until then ${end.last.message} (${attempts})`, end.last.advice);
  }

  private attempt(body: Uint8Array, signal: AbortSignal): Promise<AttemptOutcome> {
    return new Promise((resolve) => {
      if (signal.aborted) {
        resolve({ kind: "fail", message: reasonOf(signal, "aborted"), advice: "" });
        return;
      }
      const request = this.send(this.url, {
        method: "POST",
        agent: this.agent,
        headers: { ...this.headers, "content-length": String(body.byteLength) },
        signal,
      });
      request.on("response", (response) => {
        const parts: Buffer[] = [];
        response.on("data", (part: Buffer) => parts.push(part));
        response.on("error", (error) => resolve(this.networkFailure(error)));
        response.on("end", () => {
          const status = response.statusCode ?? 0;
          if (status >= 200 && status < 300) resolve({ kind: "success", partial: partialSuccess(Buffer.concat(parts), response.headers["content-type"]) });
          else {
            const said = failureMessage(Buffer.concat(parts), response.headers["content-type"]);
            const message = `the collector answered HTTP ${status}${said === "" ? "" : ` (${said})`}`;
            const advice = adviceForStatus(status);
            resolve(RETRIABLE_STATUSES.has(status) ? { kind: "retry", afterMs: retryAfterMs(response.headers["retry-after"]), message, advice } : { kind: "fail", message, advice });
          }
        });
      });
      request.on("error", (error) => resolve(signal.aborted ? { kind: "fail", message: reasonOf(signal, error.message), advice: "" } : this.networkFailure(error)));
      request.end(body);
    });
  }

  private networkFailure(error: Error): AttemptOutcome {
    const advice = adviceForConnectionError((error as NodeJS.ErrnoException).code);
    // A refused or reset connection is a collector restarting or not up yet: retriable, until shutdown.
    return this.retryConnections ? { kind: "retry", afterMs: null, message: error.message, advice } : { kind: "fail", message: error.message, advice };
  }
}

function reasonOf(signal: AbortSignal, fallback: string): string {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason.message : fallback;
}

function withAdvice(message: string, advice: string): string {
  return advice === "" ? message : `${message}; ${advice}`;
}

function formatSeconds(milliseconds: number): string {
  return `${Math.round(milliseconds / 100) / 10} s`;
}

/** Retry-After as seconds (the receiver's form) or an HTTP date. */
function retryAfterMs(value: string | undefined): number | null {
  if (value === undefined) return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isFinite(date) ? Math.max(0, date - Date.now()) : null;
}

/** Waits `ms` unless the signal aborts first; false when it did. */
function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) {
      resolve(false);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
