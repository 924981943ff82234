/**
 * The receiver's options as the configuration sets them — where it listens,
 * what it accepts (body size, bearer and tenant tokens) and its bounds
 * (receiver-bounds.ts) — for startReceiver. Every role that runs a receiver
 * (`serve`, `receive`, `collect`) builds them here, so a receiver setting
 * added later reaches all of them.
 */
import type { CollectorConfig } from "../wiring/config/collector-config.js";
import { receiverBounds } from "./receiver-bounds.js";
import type { ReceiverOptions } from "./start-receiver.js";

/** Everything but where the spans go (the bus) and what only tests set (clock, gRPC keepalive, error hook). */
export type ConfiguredReceiverOptions = Omit<ReceiverOptions, "publisher" | "defaultRetryAfterSeconds" | "now" | "grpcKeepalive" | "onInternalError">;

/** OTLP's gRPC port, as 4318 is its HTTP one. */
export const defaultGrpcPort = 4317;

/**
 * The OTLP/gRPC port the settings ask for; null: none. Unset, it is 4317 — or a free port when the HTTP port
 * is 0: whoever asks for a free HTTP port (`ragscope demo`, tests run side by side) runs a collector beside
 * others and must not take 4317 from one of them either.
 */
export function grpcPortOf(receiver: Readonly<CollectorConfig["receiver"]>): number | null {
  if (receiver.grpcPort === "off") return null;
  return receiver.grpcPort ?? (receiver.port === 0 ? 0 : defaultGrpcPort);
}

export function receiverOptions(config: Readonly<CollectorConfig>): ConfiguredReceiverOptions {
  const { receiver } = config;
  return {
    host: receiver.host,
    port: receiver.port,
    grpcPort: grpcPortOf(receiver),
    maxBodyBytes: receiver.maxBodyBytes,
    authTokens: receiver.authTokens,
    tenantTokens: receiver.tenantTokens,
    ...receiverBounds(config),
  };
}
