/**
 * `ragscope collect`: both roles in one process — OTLP/HTTP → Kafka → the
 * consumer group → ClickHouse. The simplest production shape; split into
 * `receive` and `evaluate` processes to scale them apart.
 */
import { Command } from "commander";
import { runCollectorProcess, type Output } from "../run/collector-process.js";
import { startKafkaEvaluator } from "../run/kafka-evaluator-role.js";
import { onlineOption } from "./online-option.js";
import { startKafkaReceiver } from "../run/kafka-receiver-role.js";
import { addConfigFlags, flagValues } from "./config-flags.js";

export function collectCommand(output: Output, setExitCode: (code: number) => void): Command {
  const command = new Command("collect").description("receive OTLP/HTTP, publish to Kafka and evaluate from Kafka in one process");
  addConfigFlags(command, ["receiver.host", "receiver.port", "kafka", "clickhouse", "assembler", "memory", "sink", "observe"]);
  command.action(async () => {
    const { overrides, flagNames } = flagValues(command);
    setExitCode(
      await runCollectorProcess({
        name: "collect",
        environment: process.env,
        overrides,
        flagNames,
        output,
        async start(config, context) {
          const evaluator = await startKafkaEvaluator(config, context, onlineOption(config, context, process.env));
          const receiver = await startKafkaReceiver(config, context).catch(async (error: unknown) => {
            await evaluator.close();
            throw error;
          });
          return {
            readiness: [...receiver.readiness, ...evaluator.readiness],
            describe: [
              `receiver listening on ${receiver.receiver.url} → Kafka topic ${config.kafka.topic} (${config.kafka.brokers.join(",")})`,
              `evaluator in group ${config.kafka.groupId} → ${evaluator.connection.describe()}`,
            ],
            failed: evaluator.failed,
            async close() {
              // The receiver first: no new spans are accepted while the evaluator writes what is ready.
              await receiver.close();
              await evaluator.close();
            },
          };
        },
      }),
    );
  });
  return command;
}
