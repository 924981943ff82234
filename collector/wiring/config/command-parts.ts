/**
 * Which parts of the collector a command runs, so the settings checks that
 * relate two values (collector-config.ts `checkCollectorCombinations`) hold a
 * command only to the values it reads: `ragscope evaluate` never publishes,
 * so a publish deadline longer than its stop deadline is no reason to refuse
 * it, while `ragscope receive` must refuse it.
 */

export interface CollectorParts {
  /** An OTLP/HTTP receiver (receiver.*). */
  httpReceiver: boolean;
  /** Publishes requests to the Kafka span topic and waits for the acknowledgement (kafka.publishTimeoutMs). */
  kafkaPublisher: boolean;
  /** A member of the consumer group: reads the span topic, writes dead letters and republishes (kafka.*). */
  kafkaConsumer: boolean;
  /** Rebuilds traces and pauses reading on its bounds (assembler.*, memory.*). */
  assembler: boolean;
}

export const everyPart: Readonly<CollectorParts> = Object.freeze({ httpReceiver: true, kafkaPublisher: true, kafkaConsumer: true, assembler: true });
const noPart: Readonly<CollectorParts> = Object.freeze({ httpReceiver: false, kafkaPublisher: false, kafkaConsumer: false, assembler: false });
/** The embedded collector (serve, demo, eval): a receiver and the in-process assembler, no Kafka. */
const embedded: Readonly<CollectorParts> = Object.freeze({ ...noPart, httpReceiver: true, assembler: true });

const partsByCommand: Readonly<Record<string, Readonly<CollectorParts>>> = {
  receive: { ...noPart, httpReceiver: true, kafkaPublisher: true },
  evaluate: { ...noPart, kafkaConsumer: true, assembler: true },
  collect: everyPart,
  serve: embedded,
  demo: embedded,
  eval: embedded,
  // Commands that only read or write the store run no part of the collector.
  gate: noPart,
  report: noPart,
  migrate: noPart,
  "dataset push": noPart,
  "dead-letters": noPart,
  "experiment report": noPart,
};

/**
 * The parts `command` runs. `ragscope config` shows the whole configuration,
 * for any role, and an unnamed caller (a test, a library user) may run any:
 * both are checked as if every part ran.
 */
export function partsOfCommand(command: string | undefined): Readonly<CollectorParts> {
  return (command === undefined ? undefined : partsByCommand[command]) ?? everyPart;
}
