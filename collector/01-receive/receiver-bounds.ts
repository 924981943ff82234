/** The receiver's bounds (SECURITY.md "Limits") as the configuration sets them, for startReceiver. */
import type { CollectorConfig } from "../wiring/config/collector-config.js";
import { decodeThreadYoungGenerationMb } from "./decode-pool.js";
import type { ReceiverOptions } from "./start-receiver.js";

export function receiverBounds(config: Readonly<CollectorConfig>): Pick<ReceiverOptions, "maxInFlightBytes" | "maxConnections" | "requestTimeoutMs" | "headersTimeoutMs" | "decodeThreads" | "decodeThreadYoungGenerationMb" | "maxFutureSpanSeconds" | "limits"> {
  const { receiver } = config;
  return {
    maxInFlightBytes: receiver.maxInFlightBytes,
    maxConnections: receiver.maxConnections,
    requestTimeoutMs: receiver.requestTimeoutMs,
    headersTimeoutMs: receiver.headersTimeoutMs,
    decodeThreads: receiver.decodeThreads,
    maxFutureSpanSeconds: receiver.maxFutureSpanSeconds,
    decodeThreadYoungGenerationMb: decodeThreadYoungGenerationMb(config.memory.maxHeapMb),
    limits: {
      maxSpansPerRequest: receiver.maxSpansPerRequest,
      maxSpansPerTrace: receiver.maxSpansPerTrace,
      maxAttributesPerSpan: receiver.maxAttributesPerSpan,
      maxAttributeValueBytes: receiver.maxAttributeValueBytes,
      maxAttributeKeyBytes: receiver.maxAttributeKeyBytes,
      maxEventsPerSpan: receiver.maxEventsPerSpan,
      maxLinksPerSpan: receiver.maxLinksPerSpan,
      maxItemsPerRequest: receiver.maxItemsPerRequest,
      maxNameBytes: receiver.maxNameBytes,
    },
  };
}
