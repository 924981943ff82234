/**
 * The online stage of the Kafka roles (sampling → judge queue, alerts), from
 * the settings' online and judge-endpoint slices. Judging is off unless
 * judge.enabled (RAGSCOPE_JUDGE_ENABLED) is true.
 */
import { sinkRetryPolicy } from "../config/collector-config.js";
import { collectorSettings, judgeEndpointSettings, onlineSettings, type Settings } from "../config/settings-schema.js";
import { onlineStageFactory } from "../online/online-stage-factory.js";
import type { KafkaEvaluatorOptions } from "../run/kafka-evaluator-role.js";
import type { RoleContext } from "../run/kafka-receiver-role.js";

export function onlineOption(settings: Readonly<Settings>, context: RoleContext): KafkaEvaluatorOptions {
  const factory = onlineStageFactory(onlineSettings(settings), judgeEndpointSettings(settings), sinkRetryPolicy(collectorSettings(settings)), context.kafka);
  context.log(`online evaluation: ${factory.judgeDescription}`);
  return { online: factory.online };
}
