/**
 * The production roles over Kafka, each a long-running process around
 * run/collector-process.ts:
 * - `receive`: OTLP/HTTP in, the Kafka span topic out (keyed OTLP protobuf,
 *   one message per trace); scale it like any stateless HTTP service.
 * - `evaluate`: a member of the Kafka consumer group that rebuilds, evaluates
 *   and stores Case Results; run one process per partition at most.
 * - `collect`: both in one process — the simplest production shape; split it
 *   into `receive` and `evaluate` processes to scale them apart.
 */
import { runCollectorProcess, type Output, type RunningRoles } from "../run/collector-process.js";
import { startKafkaEvaluator } from "../run/kafka-evaluator-role.js";
import { startKafkaReceiver } from "../run/kafka-receiver-role.js";
import { openClickHouseStore } from "../../../store/clickhouse/clickhouse-store.js";
import { collectorSettings } from "../config/settings-schema.js";
import { reportInvalidSettings, settingsForCommand, type SettingsRequest } from "./command-settings.js";
import type { FlagValues } from "./config-flags.js";
import { ExitCode } from "./exit-codes.js";
import { onlineOption } from "./online-option.js";

export type RoleName = "receive" | "evaluate" | "collect";

const roles: Record<RoleName, Parameters<typeof runCollectorProcess>[0]["start"]> = {
  async receive(settings, context): Promise<RunningRoles> {
    const config = collectorSettings(settings);
    // Health snapshots go to a ClickHouse server when one is configured; the embedded store belongs to the evaluator.
    const healthStore = config.clickhouse.url === null ? null : await openClickHouseStore(config.clickhouse, { migrate: false });
    const role = await startKafkaReceiver(config, context, healthStore?.health ?? null).catch(async (error: unknown) => {
      await healthStore?.close();
      throw error;
    });
    return {
      readiness: role.readiness,
      describe: [`receiver listening on ${role.receiver.url} → Kafka topic ${config.kafka.topic} (${config.kafka.brokers.join(",")})`],
      async close() {
        await role.close();
        await healthStore?.close();
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

export async function runRole(name: RoleName, request: SettingsRequest, flags: FlagValues, output: Output): Promise<number> {
  const resolved = await settingsForCommand(name, request, { flags });
  if (!resolved.ok) {
    reportInvalidSettings(name, resolved.error, output);
    return ExitCode.undecided;
  }
  return runCollectorProcess({ name, settings: resolved.value.settings, debug: Boolean(request.environment?.RAGSCOPE_DEBUG), output, start: roles[name] });
}
