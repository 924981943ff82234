/**
 * The production roles over Kafka, each a long-running process around
 * run/collector-process.ts:
 * - `receive`: OTLP/HTTP and OTLP/gRPC in, the Kafka span topic out (keyed OTLP protobuf,
 *   one message per trace); scale it like any stateless HTTP service. It
 *   needs no database to start: with RAGSCOPE_CLICKHOUSE_URL set, its health
 *   snapshots are written there best-effort (never DDL, never fatal).
 * - `evaluate`: a member of the Kafka consumer group that rebuilds, evaluates
 *   and stores Case Results; run one process per partition at most.
 * - `collect`: both in one process — the simplest production shape; split it
 *   into `receive` and `evaluate` processes to scale them apart.
 */
import { runCollectorProcess, type Output, type RunningRoles } from "../run/collector-process.js";
import { startKafkaEvaluator } from "../run/kafka-evaluator-role.js";
import { startKafkaReceiver, type RoleContext } from "../run/kafka-receiver-role.js";
import type { RunningReceiver } from "../../01-receive/start-receiver.js";
import { clickHouseServerConnection, type ClickHouseConfig, type ClickHouseConnection } from "../../../store/clickhouse/clickhouse-connection.js";
import { ClickHouseHealthSink } from "../../../store/clickhouse/clickhouse-health-sink.js";
import { BestEffortHealthSink, registerHealthSinkMetrics } from "../observe/best-effort-health-sink.js";
import { describeOrigin } from "../config/load-settings.js";
import { collectorSettings } from "../config/settings-schema.js";
import { kafkaStartFailure } from "./kafka-start-failure.js";
import { collectorListeners, listenerClashes } from "../config/listener-clashes.js";
import { reportInvalidSettings, settingsForCommand, type SettingsRequest } from "./command-settings.js";
import type { FlagValues } from "./config-flags.js";
import { ExitCode } from "./exit-codes.js";
import { onlineOption } from "./online-option.js";
import { openReceiverWarning } from "./open-receiver-warning.js";
import { debugRequested } from "./debug-variable.js";

export type RoleName = "receive" | "evaluate" | "collect";

const roles: Record<RoleName, Parameters<typeof runCollectorProcess>[0]["start"]> = {
  async receive(settings, context): Promise<RunningRoles> {
    const config = collectorSettings(settings);
    // Health snapshots go to a ClickHouse server when one is configured (the embedded store belongs to the evaluator),
    // best-effort: the receiver is stateless and starts without the server — no DDL, no ping — and runs through its outages.
    const health = config.clickhouse.url === null ? null : receiverHealthSink({ ...config.clickhouse, url: config.clickhouse.url }, config.observe.healthSnapshotMs, context);
    const role = await startKafkaReceiver(config, context, health?.sink ?? null).catch(async (error: unknown) => {
      await health?.connection.close();
      throw error;
    });
    return {
      readiness: role.readiness,
      describe: [`receiver listening on ${role.receiver.url} → Kafka topic ${config.kafka.topic} (${config.kafka.brokers.join(",")})`, grpcLine(role.receiver)],
      async close() {
        await role.close();
        await health?.connection.close();
      },
    };
  },
  async evaluate(settings, context): Promise<RunningRoles> {
    const config = collectorSettings(settings);
    const role = await startKafkaEvaluator(config, context, onlineOption(settings, context));
    return {
      readiness: role.readiness,
      describe: [`evaluator in group ${config.kafka.groupId} reading ${config.kafka.topic} (${config.kafka.brokers.join(",")}) → ${role.store.describe()}`],
      failed: role.failed,
      close: () => role.close(),
    };
  },
  async collect(settings, context): Promise<RunningRoles> {
    const config = collectorSettings(settings);
    const evaluator = await startKafkaEvaluator(config, context, onlineOption(settings, context));
    const receiver = await startKafkaReceiver(config, context, evaluator.store.health).catch(async (error: unknown) => {
      await evaluator.close();
      throw error;
    });
    return {
      readiness: [...receiver.readiness, ...evaluator.readiness],
      describe: [
        `receiver listening on ${receiver.receiver.url} → Kafka topic ${config.kafka.topic} (${config.kafka.brokers.join(",")})`,
        grpcLine(receiver.receiver),
        `evaluator in group ${config.kafka.groupId} → ${evaluator.store.describe()}`,
      ],
      failed: evaluator.failed,
      async close() {
        // The receiver first: no new spans are accepted while the evaluator writes what is ready.
        await receiver.close();
        await evaluator.close();
      },
    };
  },
};

/** The OTLP/gRPC address, on a line of its own after the HTTP one (tools parse "receiver listening on" for the HTTP URL). */
function grpcLine(receiver: RunningReceiver): string {
  return receiver.grpcUrl === null ? "OTLP/gRPC off (--grpc-port off)" : `OTLP/gRPC on ${receiver.grpcUrl}`;
}

export async function runRole(name: RoleName, request: SettingsRequest, flags: FlagValues, output: Output): Promise<number> {
  const resolved = await settingsForCommand(name, request, { flags });
  if (!resolved.ok) {
    reportInvalidSettings(name, resolved.error, output);
    return ExitCode.undecided;
  }
  const clashes = listenerClashes(`ragscope ${name}`, collectorListeners(resolved.value.settings, resolved.value.origins, { receiver: name !== "evaluate" }));
  if (clashes.length > 0) {
    reportInvalidSettings(name, clashes, output);
    return ExitCode.undecided;
  }
  // The evaluator listens to no client; the receiving roles say when anyone may send them spans.
  const exposure = name === "evaluate" ? null : openReceiverWarning(name, resolved.value.settings.receiver);
  if (exposure !== null) output.error(exposure);
  const brokersOrigin = describeOrigin(resolved.value.origins.get("kafka.brokers"), "kafka.brokers");
  return runCollectorProcess({
    name,
    settings: resolved.value.settings,
    debug: debugRequested(request.environment),
    output,
    // Kafka out of reach is said as such, with the brokers and where they were set.
    start: (settings, context) => roles[name](settings, context).catch((error: unknown) => Promise.reject(kafkaStartFailure(error, settings.kafka.brokers, brokersOrigin) ?? error)),
  });
}

/** Exported for tests: each role's start, as runRole runs it inside runCollectorProcess. */
export const startRole: Readonly<typeof roles> = roles;

/** Health snapshots of `ragscope receive` to a ClickHouse server, best-effort (best-effort-health-sink.ts). */
function receiverHealthSink(clickhouse: ClickHouseConfig & { url: string }, intervalMs: number, context: RoleContext): { sink: BestEffortHealthSink; connection: ClickHouseConnection } {
  // The client's own error log is off (the sink says it once); a short timeout keeps a stop quick while the server is away.
  const connection = clickHouseServerConnection(clickhouse, { clientLog: false, requestTimeoutMs: 10_000 });
  const sink = new BestEffortHealthSink(new ClickHouseHealthSink(connection), { destination: connection.describe(), intervalMs, log: context.log });
  registerHealthSinkMetrics(context.registry, sink, "receiver");
  return { sink, connection };
}
