/**
 * Evaluator-role members started inside the test process (the same
 * composition `ragscope evaluate` runs), for tests that need several group
 * members but no process boundary. They share the embedded engine's data
 * folder, which chDB allows within one process.
 */
import type { Kafka } from "kafkajs";
import { logLevel } from "kafkajs";
import type { CollectorConfig } from "../../../../collector/wiring/config/collector-config.js";
import { loadSettings } from "../../../../collector/wiring/config/load-settings.js";
import { collectorSettings } from "../../../../collector/wiring/config/settings-schema.js";
import { createKafkaClient } from "../../../../collector/02-transport/kafka/kafka-client.js";
import { MetricsRegistry } from "../../../../collector/wiring/observe/metrics-registry.js";
import { startKafkaEvaluator, type KafkaEvaluatorRole } from "../../../../collector/wiring/run/kafka-evaluator-role.js";

export interface InProcessEvaluator {
  role: KafkaEvaluatorRole;
  registry: MetricsRegistry;
  config: Readonly<CollectorConfig>;
  kafka: Kafka;
}

export function evaluatorConfig(overrides: Record<string, unknown>): Readonly<CollectorConfig> {
  // Tests name the brokers as the environment would, "host:port,host:port"; the settings take a list.
  const brokers = overrides["kafka.brokers"];
  if (typeof brokers === "string") overrides = { ...overrides, "kafka.brokers": brokers.split(",") };
  const loaded = loadSettings({ fixed: { "assembler.quietPeriodMs": 300, "kafka.sessionTimeoutMs": 6_000, "kafka.heartbeatIntervalMs": 1_000, "kafka.commitIntervalMs": 300, ...overrides } });
  if (!loaded.ok) throw new Error(loaded.error.join("\n"));
  return collectorSettings(loaded.value);
}

export async function startInProcessEvaluator(config: Readonly<CollectorConfig>): Promise<InProcessEvaluator> {
  const registry = new MetricsRegistry();
  // kafkajs's rebalance chatter (WARN) is expected here; errors still show.
  const kafka = createKafkaClient(config.kafka, { level: logLevel.ERROR });
  const role = await startKafkaEvaluator(config, { kafka, registry, log: () => {} });
  return { role, registry, config, kafka };
}
