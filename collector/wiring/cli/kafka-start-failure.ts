/**
 * A Kafka role that could not reach Kafka at start: kafkajs gives up after its
 * retries with "Connection error: connect ECONNREFUSED …", which named
 * neither Kafka nor the setting. This error carries the configured brokers
 * and where they came from, for the one line describe-failure.ts prints.
 */

/** kafkajs errors that mean the brokers could not be reached or did not answer. */
const UNREACHABLE = new Set(["KafkaJSConnectionError", "KafkaJSConnectionClosedError", "KafkaJSRequestTimeoutError", "KafkaJSBrokerNotFound"]);

export class KafkaUnavailableError extends Error {
  constructor(
    /** The configured bootstrap brokers. */
    readonly brokers: readonly string[],
    /** Where they came from: "flag --kafka-brokers", "environment variable RAGSCOPE_KAFKA_BROKERS", "default", … */
    readonly origin: string,
    /** The broker address the failed connection went to, when kafkajs says; one the cluster advertised when not among `brokers`. */
    readonly broker: string | null,
    readonly detail: string,
    options: { cause: unknown },
  ) {
    super(`cannot connect to Kafka at ${brokers.join(",")}: ${detail}`, options);
    this.name = "KafkaUnavailableError";
  }
}

interface KafkaJsError {
  name: string;
  message: string;
  broker?: unknown;
  cause?: unknown;
  originalError?: unknown;
}

function* causes(error: unknown): Generator<KafkaJsError> {
  const seen = new Set<unknown>();
  let current: unknown = error;
  while (typeof current === "object" && current !== null && !seen.has(current)) {
    seen.add(current);
    yield current as KafkaJsError;
    const next = current as KafkaJsError;
    current = next.cause ?? next.originalError;
  }
}

/** The error as a KafkaUnavailableError when kafkajs could not reach the brokers; null for anything else. */
export function kafkaStartFailure(error: unknown, brokers: readonly string[], origin: string): KafkaUnavailableError | null {
  for (const cause of causes(error)) {
    // kafkajs sometimes re-wraps a connection error without its cause; its message stays.
    if (!UNREACHABLE.has(cause.name) && !(cause.name.startsWith("KafkaJS") && cause.message.startsWith("Connection error: "))) continue;
    const broker = typeof cause.broker === "string" && cause.broker !== "" ? cause.broker : null;
    return new KafkaUnavailableError(brokers, origin, broker, cause.message.split("\n")[0]!.replace(/^Connection error: /, ""), { cause: error });
  }
  return null;
}
