/**
 * Builds the embedded collector's online stage (sampling → judge queue →
 * judge workers, and alerts) from the environment: the online configuration
 * (`RAGSCOPE_SAMPLE_*`, `RAGSCOPE_JUDGE_*`, `RAGSCOPE_ALERT_*`) and the judge
 * endpoint (judge-config.ts). Errors are returned with the variable to fix.
 */
import { success, type Result } from "../../contracts/result.js";
import type { Kafka } from "kafkajs";
import type { RetryPolicy } from "../../contracts/retry.js";
import type { EmbeddedCollectorOptions } from "../run/embedded-collector.js";
import { judgeFromEnvironment } from "./judge-config.js";
import { loadOnlineConfig } from "./online-config.js";
import { createOnlineStage } from "./online-stage.js";

export interface OnlineStageFactory {
  online: NonNullable<EmbeddedCollectorOptions["online"]>;
  judgeDescription: string;
}

/** @param kafka the collector's Kafka client, for a Kafka judge queue and an alerts topic */
export function onlineStageFromEnvironment(environment: NodeJS.ProcessEnv, overrides: Record<string, unknown>, retry: RetryPolicy, kafka?: Kafka): Result<OnlineStageFactory, string[]> {
  const config = loadOnlineConfig(environment, overrides);
  if (!config.ok) return config;
  const judge = judgeFromEnvironment(environment);
  if (!judge.ok) return judge;
  return success({
    judgeDescription: config.value.judge.enabled ? judge.value.describe : "judge disabled (RAGSCOPE_JUDGE_ENABLED)",
    online: async (store) => {
      const stage = await createOnlineStage(config.value, { store, judge: judge.value.judge, budget: judge.value.budget, retry, ...(kafka ? { kafka } : {}) });
      if (!stage.ok) throw new Error(`online stage: ${stage.error.join("; ")}`);
      return stage.value;
    },
  });
}

