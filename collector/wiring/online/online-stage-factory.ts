/**
 * Builds the online stage (sampling → judge queue → judge workers, and alerts)
 * from the settings' typed slices: the online sections (what is judged and how
 * fast) and the judge endpoint (which judge).
 */
import type { Kafka } from "kafkajs";
import type { RetryPolicy } from "../../../core/retry.js";
import type { EmbeddedCollectorOptions } from "../run/embedded-collector.js";
import { createConfiguredEmbeddings } from "./embeddings-config.js";
import { createConfiguredJudge, type JudgeEndpointConfig } from "./judge-config.js";
import type { OnlineConfig } from "./online-config.js";
import { OnlineSettingsError } from "./online-settings-error.js";
import { createOnlineStage } from "./online-stage.js";
import type { AttributionOptions } from "../../../evaluators/root-cause/index.js";

export interface OnlineStageFactory {
  online: NonNullable<EmbeddedCollectorOptions["online"]>;
  judgeDescription: string;
}

/**
 * @param kafka the collector's Kafka client, for a Kafka judge queue and an alerts topic
 * @param attribution for the root cause the judge results decide again: the corpus index of `eval --corpus`, the
 *   same the collector's evaluation worker has (EmbeddedCollectorOptions.attribution)
 */
export function onlineStageFactory(config: Readonly<OnlineConfig>, endpoint: Readonly<JudgeEndpointConfig>, retry: RetryPolicy, kafka?: Kafka, attribution?: AttributionOptions): OnlineStageFactory {
  const judge = createConfiguredJudge(endpoint);
  const embeddings = createConfiguredEmbeddings(config.embeddingsEndpoint);
  const measuring = embeddings === null ? "" : `; ${embeddings.describe}`;
  return {
    judgeDescription: config.judge.enabled ? `${judge.describe}${measuring}` : "judge disabled (RAGSCOPE_JUDGE_ENABLED)",
    online: async (store) => {
      const stage = await createOnlineStage(config, { store, judge: judge.judge, budget: judge.budget, retry, attribution, ...(embeddings ? { embeddings } : {}), ...(kafka ? { kafka } : {}) });
      if (!stage.ok) throw new OnlineSettingsError(stage.error);
      return stage.value;
    },
  };
}
