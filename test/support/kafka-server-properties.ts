/**
 * server.properties for a single-node KRaft test broker (broker and controller
 * in one process), with a static voter set.
 *
 * Static voters (controller.quorum.voters) rather than the dynamic quorum of
 * Kafka 4's shipped config: the storage is then formatted without
 * --standalone, and the same file works on 3.9 and 4.x.
 */

export type KafkaPropertyValue = string | number | boolean;

export interface KafkaServerPropertiesInput {
  readonly brokerPort: number;
  readonly controllerPort: number;
  readonly dataDirectory: string;
  /** Added last, so they replace any default below. */
  readonly overrides?: Readonly<Record<string, KafkaPropertyValue>>;
}

const nodeId = 1;

/**
 * Defaults chosen for fast, single-node tests. The values follow Kafka's own test
 * broker (core/src/test/scala/unit/kafka/utils/TestUtils.scala createBrokerConfig).
 */
function defaultProperties(input: KafkaServerPropertiesInput): Record<string, KafkaPropertyValue> {
  return {
    "process.roles": "broker,controller",
    "node.id": nodeId,
    "controller.quorum.voters": `${nodeId}@127.0.0.1:${input.controllerPort}`,
    listeners: `PLAINTEXT://127.0.0.1:${input.brokerPort},CONTROLLER://127.0.0.1:${input.controllerPort}`,
    "advertised.listeners": `PLAINTEXT://127.0.0.1:${input.brokerPort}`,
    "inter.broker.listener.name": "PLAINTEXT",
    "controller.listener.names": "CONTROLLER",
    "listener.security.protocol.map": "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
    "log.dirs": input.dataDirectory,
    "num.partitions": 1,
    // Tests create their topics explicitly; a typo should fail, not auto-create.
    "auto.create.topics.enable": false,
    // The defaults (3, and min ISR 2) can never be met on one node: __consumer_offsets
    // would never be created and every group would wait for a coordinator forever.
    "offsets.topic.replication.factor": 1,
    "offsets.topic.num.partitions": 1,
    "transaction.state.log.replication.factor": 1,
    "transaction.state.log.min.isr": 1,
    "transaction.state.log.num.partitions": 1,
    "share.coordinator.state.topic.replication.factor": 1,
    "share.coordinator.state.topic.min.isr": 1,
    // Default 3000: the first classic-protocol join would wait 3 s for more members.
    "group.initial.rebalance.delay.ms": 0,
    // Default 30000: log cleanup and retention tasks start 30 s after startup.
    "log.initial.task.delay.ms": 100,
    "log.delete.delay.ms": 1000,
    // Default 9000: after a crash (SIGKILL) the restarted broker is only unfenced
    // once the previous incarnation's session has expired. Loopback heartbeats
    // inside one JVM do not need a long session.
    "broker.session.timeout.ms": 3000,
    "broker.heartbeat.interval.ms": 500,
    "num.network.threads": 2,
    "num.io.threads": 4,
    "background.threads": 2,
    "num.recovery.threads.per.data.dir": 1,
  };
}

export function renderKafkaServerProperties(input: KafkaServerPropertiesInput): string {
  const properties = { ...defaultProperties(input), ...input.overrides };
  const lines = Object.entries(properties).map(([key, value]) => `${key}=${String(value)}`);
  return `${lines.join("\n")}\n`;
}
