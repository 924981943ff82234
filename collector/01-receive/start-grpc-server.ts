/**
 * The OTLP/gRPC trace receiver's server (grpc-trace-service.ts): plaintext
 * HTTP/2 on the receiver's host, beside the OTLP/HTTP server and sharing its
 * pipeline, token check, byte budget, decode threads and counters.
 *
 * A message is bounded by `grpc.max_receive_message_length`, set to the same
 * body bound as OTLP/HTTP (RAGSCOPE_MAX_BODY_BYTES); grpc-js applies it to the
 * message as received and again after gzip, and answers RESOURCE_EXHAUSTED
 * past it.
 */
import grpc from "@grpc/grpc-js";
import { PortInUseError } from "./listen.js";
import { createGrpcTraceService, traceServiceDefinition } from "./grpc-trace-service.js";
import type { TraceExportContext } from "./export-trace-request.js";

export interface RunningGrpcServer {
  /** e.g. `http://127.0.0.1:4317`, as an OTLP/gRPC exporter's endpoint is written. */
  url: string;
  port: number;
  /** Takes no new calls, lets calls in flight finish, and ends whatever is left after `drainTimeoutMs`. */
  close(drainTimeoutMs: number): Promise<void>;
}

export async function startGrpcServer(options: { host: string; port: number; context: TraceExportContext; onInternalError: (error: unknown) => void }): Promise<RunningGrpcServer> {
  // grpc-js prints its own errors to stderr (a port in use as "E No address added out of total 1 resolved"); each
  // one that matters reaches us as a value and is told once, in our words. GRPC_VERBOSITY still shows them.
  if (process.env.GRPC_VERBOSITY === undefined) grpc.setLogVerbosity(grpc.logVerbosity.NONE);
  const service = createGrpcTraceService(options.context, options.onInternalError);
  const server = new grpc.Server({
    interceptors: [service.interceptor],
    "grpc.max_receive_message_length": options.context.maxBodyBytes,
  });
  server.addService(traceServiceDefinition, service.implementation);
  // An IPv6 literal is written in brackets, as in a URL.
  const hostForAddress = options.host.includes(":") && !options.host.startsWith("[") ? `[${options.host}]` : options.host;
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(`${hostForAddress}:${options.port}`, grpc.ServerCredentials.createInsecure(), (error, boundPort) => {
      if (error === null) return resolve(boundPort);
      // grpc-js words every bind failure as one Error whose message lists the system errors.
      reject(/EADDRINUSE|address already in use/i.test(error.message) ? new PortInUseError("grpc", options.host, options.port, { cause: error }) : error);
    });
  });
  let closing: Promise<void> | null = null;
  return {
    url: `http://${hostForAddress}:${port}`,
    port,
    close(drainTimeoutMs) {
      closing ??= new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, drainTimeoutMs);
        timer.unref();
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      });
      return closing;
    },
  };
}
