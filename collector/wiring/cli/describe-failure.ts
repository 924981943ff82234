/**
 * Turns an error that reached the command line into one line that says what
 * happened, where, and how to fix it. Expected failures have their own types
 * (mapped at the edge where they happen); anything else is a bug, printed with
 * its message, and its stack when RAGSCOPE_DEBUG is on (debug-variable.ts).
 */
import { HostUnusableError, PortInUseError } from "../../01-receive/listen.js";
import { StoreLockedError } from "../../../store/clickhouse/store-locked-error.js";
import { describeStoredCaseConflict, StoredCaseConflictError } from "../../../store/ports/case-store.js";
import { ClickHouseServerError, DataFolderError } from "../../../store/clickhouse/store-open-errors.js";
import { describeRetentionPastLimit, RetentionPastLimitError } from "../../../store/clickhouse/retention-limit.js";
import { KafkaUnavailableError } from "./kafka-start-failure.js";
import { OnlineSettingsError } from "../online/online-settings-error.js";

const hostWith = {
  receiver: "--host H (or RAGSCOPE_RECEIVER_HOST)",
  grpc: "--host H (or RAGSCOPE_RECEIVER_HOST)",
  metrics: "RAGSCOPE_METRICS_HOST",
} as const;

const moveWith = {
  receiver: "--port N (or RAGSCOPE_RECEIVER_PORT); --port 0 picks a free port",
  grpc: "--grpc-port N (or RAGSCOPE_GRPC_PORT); 0 picks a free port, off turns OTLP/gRPC off",
  metrics: "--metrics-port N (or RAGSCOPE_METRICS_PORT); 0 picks a free port",
} as const;

/** @param debug print the stack trace too (RAGSCOPE_DEBUG is on: debug-variable.ts) */
export function describeFailure(commandName: string, error: unknown, debug: boolean): string[] {
  const command = commandName === "" ? "" : ` ${commandName}`;
  if (error instanceof PortInUseError) {
    const role = { receiver: "the OTLP/HTTP receiver", grpc: "the OTLP/gRPC receiver", metrics: "the metrics endpoint" }[error.purpose];
    return [
      `ragscope${command}: port ${error.port} on ${error.host} is already in use, so ${role} cannot start ` +
        `(another collector — ragscope, the OTel Collector, Jaeger or Phoenix — may be running there); choose another port with ${moveWith[error.purpose]}`,
    ];
  }
  if (error instanceof HostUnusableError) {
    const role = { receiver: "the OTLP/HTTP receiver", grpc: "the OTLP/gRPC receiver", metrics: "the metrics endpoint" }[error.purpose];
    const why = error.code === "EADDRNOTAVAIL" ? "it is no address of this machine" : "the name does not resolve";
    return [
      `ragscope${command}: ${role} cannot listen on ${error.host}: ${why} (${error.code}); set ${hostWith[error.purpose]} to an address of this machine — 127.0.0.1 for this machine only, 0.0.0.0 for every interface`,
    ];
  }
  if (error instanceof StoreLockedError) {
    const holder = error.holder === null ? "another process" : `process ${error.holder.pid}${error.holder.command ? ` (${error.holder.command})` : ""}`;
    // A Kafka evaluator has no web UI to read through: the way to read while evaluators write is a server store.
    const heldByEvaluator = /\bragscope(\.js)? (evaluate|collect)\b/.test(error.holder?.command ?? "");
    return [
      `ragscope${command}: the data folder ${error.dataPath} is held by ${holder}; the embedded engine lets one process at a time open it. ` +
        `Stop that process first${error.holder === null ? "" : ` (Ctrl-C in its terminal, or kill -TERM ${error.holder.pid})`}, or use another folder with --data-dir (or RAGSCOPE_DATA_DIR). ` +
        (heldByEvaluator
          ? `An evaluator holds its folder for as long as it runs: to read the store while evaluators write it, run them against a ClickHouse server (--clickhouse-url or RAGSCOPE_CLICKHOUSE_URL), which any number of processes share`
          : `While ragscope serve runs, its web UI and read API (the address it printed at start; GET /api/runs/<run>/summary) show the same data`) +
        // eval need not stop serve: it can send its cases to the running collector instead of opening the folder itself.
        (commandName === "eval" ? `, and eval can run against it: --endpoint <its OTLP/HTTP address, e.g. http://127.0.0.1:4318> --read-api <its web UI address, e.g. http://127.0.0.1:4000>` : ""),
    ];
  }
  if (error instanceof StoredCaseConflictError) return error.conflicts.map((conflict) => `ragscope${command}: ${describeStoredCaseConflict(conflict)}`);
  if (error instanceof KafkaUnavailableError) return [`ragscope${command}: ${describeKafka(error)}`];
  if (error instanceof ClickHouseServerError) return [`ragscope${command}: ${describeServer(error)}`];
  if (error instanceof DataFolderError) return [`ragscope${command}: ${describeFolder(error)}`];
  // Each table whose TTL passes 2106 on a line of its own: the message says the fix.
  if (error instanceof RetentionPastLimitError) return error.problems.map((problem) => `ragscope${command}: ${describeRetentionPastLimit(problem, error.database, error.store)}`);
  if (error instanceof OnlineSettingsError) {
    return [`ragscope${command}: ${error.message}; fix the gate file, or the RAGSCOPE_ALERT_* / RAGSCOPE_JUDGE_* variables (collector/wiring/online/README.md), and start again`];
  }
  const message = error instanceof Error ? error.message : String(error);
  const lines = [`ragscope${command}: unexpected error: ${message.split("\n")[0]}${debug ? "" : " (set RAGSCOPE_DEBUG=1 for the stack trace)"}`];
  if (debug && error instanceof Error && error.stack) lines.push(error.stack);
  return lines;
}

const brokersSetting = "--kafka-brokers host:port,... (or RAGSCOPE_KAFKA_BROKERS; default localhost:9092)";

function describeKafka(error: KafkaUnavailableError): string {
  const configured = error.brokers.join(",");
  if (error.broker !== null && !error.brokers.includes(error.broker)) {
    // The bootstrap broker answered and named another address for itself (advertised.listeners), which is not reachable from here.
    return (
      `Kafka at ${configured} (${error.origin}) answered, but the broker address it advertises, ${error.broker}, cannot be reached from here (${error.detail}); ` +
      `set the broker's advertised.listeners (KAFKA_ADVERTISED_LISTENERS) to an address this host reaches, or run ragscope where ${error.broker} resolves`
    );
  }
  return `cannot connect to Kafka at ${configured} (${error.origin}): ${error.detail}; check that Kafka runs and listens there, or name its bootstrap brokers with ${brokersSetting}`;
}

const urlSetting = "--clickhouse-url (or RAGSCOPE_CLICKHOUSE_URL)";

function describeServer(error: ClickHouseServerError): string {
  const where = `the ClickHouse server at ${error.url}`;
  switch (error.problem) {
    case "unreachable":
      return `cannot reach ${where} (${error.detail}); check that it runs and that ${urlSetting} names its HTTP interface, e.g. http://clickhouse:8123 — or unset it to use the embedded engine in --data-dir`;
    case "login refused":
      return `${where} refused the login (${error.detail}); set the user with --clickhouse-user (or RAGSCOPE_CLICKHOUSE_USER) and its password in RAGSCOPE_CLICKHOUSE_PASSWORD (or the config file's clickhouse.password)`;
    case "not permitted":
      return `${where} does not let this user create or use the database ${error.database} (${error.detail}); grant it (GRANT CREATE DATABASE, ALL ON ${error.database}.*), or name a database it may use with --clickhouse-database (or RAGSCOPE_CLICKHOUSE_DATABASE)`;
    case "failed":
      return `${where} could not be used (${error.detail}); check that ${urlSetting} names a ClickHouse server's HTTP interface (port 8123, or 8443 with https)`;
  }
}

const folderSetting = "--data-dir (or RAGSCOPE_DATA_DIR)";

function describeFolder(error: DataFolderError): string {
  switch (error.problem) {
    case "not a folder":
      return `the data folder ${error.dataPath} cannot be created: it, or a folder above it, is a file (${error.detail}); name a folder with ${folderSetting}`;
    case "not permitted":
      return `the data folder ${error.dataPath} cannot be written by this user (${error.detail}); give the user running ragscope write permission on it (chown or chmod), or name another folder with ${folderSetting}`;
    case "unopenable":
      return `the embedded engine cannot open the data folder ${error.dataPath} (${error.detail}; the engine's own reason, when it gives one, is printed above); check that the user running ragscope may read and write every file in it, or name another folder with ${folderSetting}`;
  }
}
