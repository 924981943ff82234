/**
 * kafkajs logs every error response at ERROR (its network/connection.js), the
 * ones it retries included. A broker that has never served a consumer group
 * answers the first group coordinator lookup with GROUP_COORDINATOR_NOT_AVAILABLE
 * while it creates __consumer_offsets, and a broker that moves a group's
 * coordinator answers NOT_COORDINATOR_FOR_GROUP or GROUP_LOAD_IN_PROGRESS for a
 * moment: kafkajs retries, and the group joins by itself within seconds. Printed
 * as they were, the first `ragscope evaluate` on a new broker showed an ERROR
 * that read as a failure. Such an entry now reads as what it is, an INFO entry
 * "waiting for the group coordinator", shown where the error would have been
 * (kafkajs has already applied the log level to it).
 *
 * A coordinator that does not come is still an error: kafkajs's retries end in
 * KafkaJSGroupCoordinatorNotFound, which the consumer reports as a crash, logged
 * by kafkajs at ERROR and by the role (consumer-group-runner.ts); those entries
 * are not touched here.
 *
 * The entry carries the error's message only, not its code: it is looked up,
 * whole, in kafkajs's own table of protocol errors to know which error it is
 * and that kafkajs retries it. A message kafkajs no longer uses matches nothing,
 * and the entry stays an ERROR.
 */
import { logLevel, type LogEntry } from "kafkajs";
import { errorCodes } from "kafkajs/src/protocol/error.js";

/** The protocol errors of a group coordinator that is starting, loading or moving. */
const coordinatorWaitTypes = new Set(["GROUP_COORDINATOR_NOT_AVAILABLE", "NOT_COORDINATOR_FOR_GROUP", "GROUP_LOAD_IN_PROGRESS"]);

/** Their messages, as kafkajs logs them, to their type. */
const coordinatorWaits = new Map(errorCodes.filter((error) => coordinatorWaitTypes.has(error.type) && error.retriable).map((error) => [error.message, error.type]));

export const COORDINATOR_WAIT_MESSAGE =
  "waiting for the group coordinator (the broker is starting, or moving the group's coordinator); kafkajs retries, and a coordinator that does not come is reported as an error";

/** The entry as it should read: a retried coordinator wait as INFO, anything else as it is. */
export function readableKafkaLogEntry(entry: LogEntry): LogEntry {
  if (entry.level !== logLevel.ERROR || entry.namespace !== "Connection") return entry;
  const type = coordinatorWaits.get(String(entry.log.error ?? ""));
  if (type === undefined) return entry;
  // kafkajs's own message names the request ("Response GroupCoordinator(key: 10, version: 2)"): kept, after ours.
  return { ...entry, level: logLevel.INFO, label: "INFO", log: { ...entry.log, message: COORDINATOR_WAIT_MESSAGE, response: entry.log.message, errorType: type } };
}
