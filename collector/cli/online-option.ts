/**
 * The online stage of the Kafka roles (sampling → judge queue, alerts), from
 * `RAGSCOPE_SAMPLE_*`, `RAGSCOPE_JUDGE_*` and `RAGSCOPE_ALERT_*`. Judging is
 * off unless RAGSCOPE_JUDGE_ENABLED=true; a bad variable stops the role at
 * start with the variable's name.
 */
import { sinkRetryPolicy, type CollectorConfig } from "../config/collector-config.js";
import { onlineStageFromEnvironment } from "../online/online-stage-factory.js";
import type { KafkaEvaluatorOptions } from "../run/kafka-evaluator-role.js";
import type { RoleContext } from "../run/kafka-receiver-role.js";

export function onlineOption(config: Readonly<CollectorConfig>, context: RoleContext, environment: NodeJS.ProcessEnv): KafkaEvaluatorOptions {
  const factory = onlineStageFromEnvironment(
    environment,
    {},
    sinkRetryPolicy(config),
    context.kafka,
  );
  if (!factory.ok) throw new Error(`invalid online evaluation settings: ${factory.error.join("; ")}`);
  context.log(`online evaluation: ${factory.value.judgeDescription}`);
  return { online: factory.value.online };
}
