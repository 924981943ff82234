/**
 * kafkajs clients for tests, configured deliberately rather than by default.
 *
 * Producers always name their partitioner. kafkajs 2.x warns when none is given
 * (its default changed in 2.0); naming one is the fix, the
 * KAFKAJS_NO_PARTITIONER_WARNING variable only hides the question.
 * DefaultPartitioner is murmur2, bit-compatible with the Java client (and with
 * the OpenTelemetry Collector's kafka exporter when it is set to the "murmur2"
 * hasher). Neither kafkajs partitioner reproduces that exporter's default,
 * sarama-compatible FNV-1a hashing; a test that needs the exact partition the
 * Collector would pick must pass its own partitioner.
 */
import { Kafka, Partitioners, logLevel, type ICustomPartitioner, type LogEntry, type Producer, type ProducerConfig } from "kafkajs";

export interface TestKafkaClientOptions {
  readonly clientId?: string;
  /** kafkajs log level; defaults to WARN. */
  readonly level?: logLevel;
  /** Receives every log entry at or above `level`; defaults to kafkajs's console logger. */
  readonly onLog?: (entry: LogEntry) => void;
}

export function createTestKafkaClient(brokers: readonly string[], options: TestKafkaClientOptions = {}): Kafka {
  const onLog = options.onLog;
  return new Kafka({
    clientId: options.clientId ?? "ragscope-tests",
    brokers: [...brokers],
    logLevel: options.level ?? logLevel.WARN,
    ...(onLog === undefined ? {} : { logCreator: () => (entry: LogEntry) => onLog(entry) }),
  });
}

/** A kafkajs client that logs nothing: for readiness probes, whose retries are expected. */
export function createSilentKafkaClient(brokers: readonly string[], clientId = "ragscope-tests-probe"): Kafka {
  return createTestKafkaClient(brokers, { clientId, level: logLevel.NOTHING, onLog: () => {} });
}

/** The partitioner test producers use unless told otherwise (see the file comment). */
export const javaCompatiblePartitioner: ICustomPartitioner = Partitioners.DefaultPartitioner;

export function createTestProducer(kafka: Kafka, config: ProducerConfig = {}): Producer {
  return kafka.producer({ createPartitioner: javaCompatiblePartitioner, ...config });
}
