/**
 * kafkajs log entries as the collector prints them — one JSON line each on
 * stderr — and what makes two entries "the same" for the repeat limit
 * (collector/wiring/observe/repeated-log-limiter.ts).
 *
 * Two entries are the same when level, namespace and message agree once the
 * message's free-standing numbers are masked: kafkajs puts counters and delays
 * into some messages ("Restarting the consumer in 1234ms") and the rest into
 * fields (timestamp, retryCount, retryTime, stack), which the key leaves out.
 * Numbers inside an address (127.0.0.1:9092, kafka-0.kafka:9092) are kept, so
 * each unreachable broker is reported on its own.
 */
import type { LogEntry } from "kafkajs";

/**
 * The level is kafkajs's `label` ("ERROR"): its `logLevel` is a plain object without reverse mapping, so
 * `logLevel[entry.level]` — what the lines carried before — was undefined and every line lacked its level.
 */
export function kafkaLogLine(entry: LogEntry): string {
  return JSON.stringify({ source: "kafkajs", level: entry.label, namespace: entry.namespace, ...entry.log });
}

/**
 * A number not glued to a word, a dot, a colon or a dash before it, and not
 * followed by more of an address (another dotted or colon-separated number).
 */
const freeStandingNumber = /(?<![\w.:-])\d+(?:\.\d+)?(?![\w.:]*\d)/g;

export function maskVariableParts(message: string): string {
  return message.replace(freeStandingNumber, "#");
}

export function kafkaLogKey(entry: LogEntry): string {
  return JSON.stringify([entry.level, entry.namespace, maskVariableParts(String(entry.log.message ?? ""))]);
}

/** The line that ends a window of left-out entries: their count, after the first entry's level, namespace and message. */
export function kafkaRepeatSummaryLine(first: LogEntry, suppressed: number, seconds: number): string {
  const message = String(first.log.message ?? "");
  return JSON.stringify({
    source: "ragscope",
    level: first.label,
    namespace: first.namespace,
    message: `${suppressed} more kafkajs log ${suppressed === 1 ? "entry" : "entries"} like this in the last ${seconds} s: ${message}`,
    suppressed,
  });
}
