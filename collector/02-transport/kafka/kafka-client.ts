/**
 * The kafkajs client of a collector process, configured from the `kafka`
 * section of the collector's configuration. kafkajs logs go to stderr as one
 * JSON line each, WARN and above (retries during a broker restart are
 * expected and logged once by kafkajs, not thrown; a retried wait for the
 * group coordinator reads as INFO: coordinator-wait-log.ts). Creating a client
 * registers the compression codecs kafkajs does not build in.
 */
import { Kafka, logLevel, type LogEntry } from "kafkajs";
import type { CollectorConfig } from "../../wiring/config/collector-config.js";
import { registerCompressionCodecs } from "./compression-codecs.js";
import { readableKafkaLogEntry } from "./coordinator-wait-log.js";
import { kafkaLogLine } from "./kafka-log-lines.js";

export type KafkaSettings = CollectorConfig["kafka"];

export interface KafkaClientOptions {
  /** Receives kafkajs's log entries; the default writes JSON lines to stderr. */
  onLog?: (entry: LogEntry) => void;
  level?: logLevel;
}

export function createKafkaClient(settings: Pick<KafkaSettings, "brokers" | "clientId">, options: KafkaClientOptions = {}): Kafka {
  const onLog = options.onLog ?? ((entry: LogEntry) => process.stderr.write(`${kafkaLogLine(entry)}\n`));
  registerCompressionCodecs();
  return new Kafka({
    clientId: settings.clientId,
    brokers: [...settings.brokers],
    logLevel: options.level ?? logLevel.WARN,
    logCreator: () => (entry: LogEntry) => onLog(readableKafkaLogEntry(entry)),
  });
}
