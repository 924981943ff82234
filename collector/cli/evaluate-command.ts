/**
 * `ragscope evaluate`: the evaluator role — a member of the Kafka consumer
 * group that rebuilds, evaluates and stores Case Results. Run one process per
 * partition at most; each takes its share of the partitions.
 */
import { Command } from "commander";
import { runCollectorProcess, type Output } from "../run/collector-process.js";
import { startKafkaEvaluator } from "../run/kafka-evaluator-role.js";
import { onlineOption } from "./online-option.js";
import { addConfigFlags, flagValues } from "./config-flags.js";

export function evaluateCommand(output: Output, setExitCode: (code: number) => void): Command {
  const command = new Command("evaluate").description("consume the Kafka span topic as a consumer group, evaluate each trace and write the results to ClickHouse");
  addConfigFlags(command, ["kafka", "clickhouse", "assembler", "memory", "sink", "observe"]);
  command.action(async () => {
    const { overrides, flagNames } = flagValues(command);
    setExitCode(
      await runCollectorProcess({
        name: "evaluate",
        environment: process.env,
        overrides,
        flagNames,
        output,
        async start(config, context) {
          const role = await startKafkaEvaluator(config, context, onlineOption(config, context, process.env));
          return {
            readiness: role.readiness,
            describe: [`evaluator in group ${config.kafka.groupId} reading ${config.kafka.topic} (${config.kafka.brokers.join(",")}) → ${role.connection.describe()}`],
            failed: role.failed,
            close: () => role.close(),
          };
        },
      }),
    );
  });
  return command;
}
