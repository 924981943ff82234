/**
 * `ragscope receive`: the receiver role — OTLP/HTTP in, the Kafka span topic
 * out (keyed OTLP protobuf, one message per trace). Scale it like any
 * stateless HTTP service.
 */
import { Command } from "commander";
import { runCollectorProcess, type Output } from "../run/collector-process.js";
import { startKafkaReceiver } from "../run/kafka-receiver-role.js";
import { addConfigFlags, flagValues } from "./config-flags.js";

export function receiveCommand(output: Output, setExitCode: (code: number) => void): Command {
  const command = new Command("receive").description("receive OTLP/HTTP traces and publish them to Kafka, keyed by trace id");
  addConfigFlags(command, ["receiver.host", "receiver.port", "kafka.brokers", "kafka.clientId", "kafka.topic", "kafka.maxMessageBytes", "kafka.compression", "observe"]);
  command.action(async () => {
    const { overrides, flagNames } = flagValues(command);
    setExitCode(
      await runCollectorProcess({
        name: "receive",
        environment: process.env,
        overrides,
        flagNames,
        output,
        async start(config, context) {
          const role = await startKafkaReceiver(config, context);
          return {
            readiness: role.readiness,
            describe: [`receiver listening on ${role.receiver.url} → Kafka topic ${config.kafka.topic} (${config.kafka.brokers.join(",")})`],
            close: () => role.close(),
          };
        },
      }),
    );
  });
  return command;
}
