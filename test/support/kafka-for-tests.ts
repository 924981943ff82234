/**
 * The Kafka cluster a test run uses: the one named by KAFKA_BROKERS, or else a
 * broker started here for the run.
 *
 * test/run-tests.ts calls this once before spawning `node --test` and passes
 * `brokers` to the test processes as KAFKA_BROKERS; a test file run on its own
 * calls it too and so gets its own broker.
 */
import { startKafkaBroker, type KafkaBroker, type KafkaBrokerOptions } from "./kafka-broker.js";

export const kafkaBrokersVariable = "KAFKA_BROKERS";

export interface KafkaForTests {
  /** Comma-separated bootstrap addresses, the format KAFKA_BROKERS takes. */
  readonly brokers: string;
  /** The broker started for this run; undefined when KAFKA_BROKERS named a cluster. */
  readonly startedBroker: KafkaBroker | undefined;
  /** Stops the broker this call started; does nothing for an external cluster. */
  stop(): Promise<void>;
}

/** KAFKA_BROKERS split into addresses, or undefined when it is unset or blank. */
export function kafkaBrokersFromEnvironment(environment: NodeJS.ProcessEnv = process.env): string[] | undefined {
  const addresses = (environment[kafkaBrokersVariable] ?? "")
    .split(",")
    .map((address) => address.trim())
    .filter((address) => address !== "");
  return addresses.length === 0 ? undefined : addresses;
}

export async function ensureKafkaForTests(
  options: KafkaBrokerOptions & { readonly environment?: NodeJS.ProcessEnv } = {},
): Promise<KafkaForTests> {
  const external = kafkaBrokersFromEnvironment(options.environment);
  if (external !== undefined) {
    return { brokers: external.join(","), startedBroker: undefined, stop: async () => {} };
  }
  const broker = await startKafkaBroker(options);
  return { brokers: broker.brokers.join(","), startedBroker: broker, stop: () => broker.stop() };
}
