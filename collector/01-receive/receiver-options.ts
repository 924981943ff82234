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

/** Everything but where the spans go (the bus) and what only tests set (clock, error hook). */
export type ConfiguredReceiverOptions = Omit<ReceiverOptions, "publisher" | "defaultRetryAfterSeconds" | "now" | "onInternalError">;

export function receiverOptions(config: Readonly<CollectorConfig>): ConfiguredReceiverOptions {
  const { receiver } = config;
  return {
    host: receiver.host,
    port: receiver.port,
    maxBodyBytes: receiver.maxBodyBytes,
    authTokens: receiver.authTokens,
    tenantTokens: receiver.tenantTokens,
    ...receiverBounds(config),
  };
}
