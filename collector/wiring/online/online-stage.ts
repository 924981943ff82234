/**
 * Online evaluation behind the rule stage (issue 6): after the rule results of
 * a batch of traces are durable, the evaluation worker calls `afterWrite`,
 * which
 * 1. hands the rule metric values to the alert evaluator, and
 * 2. samples the traces and enqueues the sampled ones on the judge queue
 *    (JudgeDispatcher) — enqueueing only; judge workers consume the queue on
 *    their own schedule, with their own concurrency and rate limit, and write
 *    judge results (then feed their values to the alerts too).
 *
 * `createOnlineStage` builds the parts from OnlineConfig; `startOnlineStage`
 * runs given parts (tests assemble their own).
 */
import type { Kafka } from "kafkajs";
import { failure, success, type Result } from "../../../core/result.js";
import type { CaseEvaluation } from "../../../evaluators/evaluate-case-result.js";
import { CachedJudge } from "../../../evaluators/judge/cached-judge.js";
import { HeuristicJudge } from "../../../evaluators/judge/heuristic-judge.js";
import type { Judge } from "../../../evaluators/judge/judge.js";
import { runJudgeEvaluations } from "../../../evaluators/judge/judge-evaluations.js";
import { JudgeUsageLedger, withUsageLedger } from "../../../evaluators/judge/judge-usage-ledger.js";
import { embeddingSimilarityEvaluations } from "../../../evaluators/embeddings/embedding-similarity.js";
import { tokenMatchingEvaluations } from "../../../evaluators/embeddings/token-matching-similarity.js";
import type { ConfiguredEmbeddings } from "./embeddings-config.js";
import { LruJudgeCache } from "../../../evaluators/judge/lru-judge-cache.js";
import type { AlertDelivery } from "../../10-alert/alert-delivery.js";
import { AlertNotifier } from "../../10-alert/alert-notifier.js";
import { KafkaAlertDelivery } from "../../10-alert/kafka-alert-delivery.js";
import { metricSamples } from "../../10-alert/metric-sample.js";
import { WebhookAlertDelivery } from "../../10-alert/webhook-alert-delivery.js";
import { InProcessJudgeQueue } from "../../09-judge/in-process-judge-queue.js";
import { JudgeDispatcher } from "../../09-judge/judge-dispatcher.js";
import type { JudgeQueue } from "../../09-judge/judge-queue.js";
import { JudgeWorker } from "../../09-judge/judge-worker.js";
import { KafkaJudgeQueue } from "../../09-judge/kafka-judge-queue.js";
import { RateLimitedJudge } from "../../09-judge/rate-limited-judge.js";
import { TokenBucket } from "../../09-judge/token-bucket.js";
import type { RetryPolicy } from "../../../core/retry.js";
import { TraceSampler, type SamplingBudget } from "../../08-sample/trace-sampler.js";
import type { Store } from "../../../store/ports/store.js";
import type { AttributionOptions } from "../../../evaluators/root-cause/index.js";
import { StoreAlertDelivery } from "../../10-alert/store-alert-delivery.js";
import type { OnlineConfig } from "./online-config.js";
import { loadAlertRules } from "./alert-rules-file.js";

export interface OnlineStage {
  /** The evaluation worker's `afterWrite` hook. */
  afterWrite(evaluations: readonly CaseEvaluation[]): Promise<void>;
  /** Nothing queued or being judged in this process. */
  isIdle(): boolean;
  close(): Promise<void>;
  readonly parts: OnlineStageParts;
}

export interface OnlineStageParts {
  dispatcher: JudgeDispatcher | null;
  queue: JudgeQueue | null;
  /** Null in a process that only enqueues (the judge workers run elsewhere). */
  worker: JudgeWorker | null;
  /** What this process's judge workers spent, for /metrics (collector/wiring/observe/judge-metrics.ts); null without workers. */
  judgeUsage: JudgeUsageLedger | null;
  /** Its counters of traces left unjudged for the spending limit, for /metrics; null without the judge. */
  sampler: TraceSampler | null;
  alerts: AlertNotifier | null;
}

export async function startOnlineStage(parts: OnlineStageParts): Promise<OnlineStage> {
  if (parts.queue !== null && parts.worker !== null) await parts.queue.start(parts.worker.handle);
  return {
    parts,
    async afterWrite(evaluations) {
      parts.alerts?.observe(metricSamples(evaluations));
      await parts.dispatcher?.dispatch(evaluations);
    },
    isIdle: () => parts.queue?.isIdle() ?? true,
    async close() {
      await parts.queue?.close();
      await parts.alerts?.close();
    },
  };
}

export interface OnlineResources {
  /** Eval Cases for the judge, where judge results and alert states and events go. */
  store: Pick<Store, "cases" | "judgeResults" | "alerts">;
  /** The judge (OpenAiJudge, VotingJudge, …); default: the deterministic HeuristicJudge. */
  judge?: Judge;
  /** Embedding measurements (answer_embedding_similarity, BERTScore-style token matching) on traces with a reference answer, at their own sample rate; default: none. */
  embeddings?: ConfiguredEmbeddings;
  /** The judge's spending limit (evaluators/judge/judge-budget.ts): the sampler stops while it is reached. */
  budget?: SamplingBudget;
  /** Needed for judge.queue = kafka and alerts.kafkaTopic. */
  kafka?: Kafka;
  /** False in a process that only enqueues judge requests; default true. */
  runJudgeWorkers?: boolean;
  /** Retries of judge-result and alert writes. */
  retry: RetryPolicy;
  /** For the root cause the judge result sink decides again: the corpus index of `eval --corpus` (JudgeWorkerOptions.attribution). */
  attribution?: AttributionOptions;
  log?: (line: string) => void;
}

/** Builds and starts the online stage from configuration. */
export async function createOnlineStage(config: Readonly<OnlineConfig>, resources: OnlineResources): Promise<Result<OnlineStage, string[]>> {
  const log = resources.log ?? ((line: string) => console.warn(line));
  const needsKafka = (config.judge.enabled && config.judge.queue === "kafka") || config.alerts.kafkaTopic !== null;
  if (needsKafka && resources.kafka === undefined) return failure(["judge.queue = kafka and alerts.kafkaTopic need the collector's Kafka brokers (RAGSCOPE_KAFKA_BROKERS)"]);

  const loaded = await loadAlertRules(config.alerts);
  if (!loaded.ok) return loaded;
  let alerts: AlertNotifier | null = null;
  if (loaded.value !== null) {
    const { evaluator, skippedNotice } = loaded.value;
    if (skippedNotice !== null) log(skippedNotice);
    const deliveries: AlertDelivery[] = [
      ...config.alerts.webhookUrls.map((url) => new WebhookAlertDelivery({ url, format: "json" })),
      ...config.alerts.slackWebhookUrls.map((url) => new WebhookAlertDelivery({ url, format: "slack" })),
    ];
    if (config.alerts.kafkaTopic !== null) deliveries.push(new KafkaAlertDelivery(resources.kafka!, config.alerts.kafkaTopic));
    if (config.alerts.table) deliveries.push(new StoreAlertDelivery(resources.store.alerts));
    // Alerts firing before a restart stay firing (and keep their alert_id) instead of firing again or being forgotten.
    evaluator.restore(await resources.store.alerts.loadState());
    alerts = new AlertNotifier({ evaluator, deliveries, state: resources.store.alerts, retry: resources.retry, tickMs: config.alerts.evaluateEveryMs, log });
  }

  let dispatcher: JudgeDispatcher | null = null;
  let queue: JudgeQueue | null = null;
  let worker: JudgeWorker | null = null;
  let judgeUsage: JudgeUsageLedger | null = null;
  let sampler: TraceSampler | null = null;
  if (config.judge.enabled) {
    sampler = new TraceSampler({ rates: { defaultRate: config.sampling.defaultRate, services: config.sampling.services, routes: config.sampling.routes, tenants: config.sampling.tenants }, budget: resources.budget, log });
    queue =
      config.judge.queue === "kafka"
        ? new KafkaJudgeQueue({ kafka: resources.kafka!, topic: config.judge.topic, groupId: config.judge.consumerGroup, batchSize: config.judge.batchSize, log })
        : new InProcessJudgeQueue({ maxQueued: config.judge.maxQueued, batchSize: config.judge.batchSize, retryDelayMs: 200, maxRetryDelayMs: 10_000 });
    dispatcher = new JudgeDispatcher({ sampler, queue, log, embeddingsSampleRate: resources.embeddings?.sampleRate ?? null });
    if (resources.runJudgeWorkers !== false) {
      // Cache outside the rate limit: a cached verdict calls nothing and takes no token.
      const bucket = new TokenBucket({ ratePerSecond: config.judge.ratePerSecond, capacity: config.judge.burst });
      const embeddings = resources.embeddings;
      // The ledger outside the cache: cache hits are counted too (at no cost).
      judgeUsage = new JudgeUsageLedger();
      const judge = withUsageLedger(new CachedJudge(new RateLimitedJudge(resources.judge ?? new HeuristicJudge(), bucket), new LruJudgeCache(config.judge.cacheEntries)), judgeUsage);
      worker = new JudgeWorker({
        run: async (caseResult, evalCase, evaluatedAt, work) => {
          // Queued before the spending limit was reached: left unjudged, as the sampler now leaves new traces, and counted.
          const admitted = work.judge && sampler!.admitsQueued();
          const results = admitted ? await runJudgeEvaluations(judge, caseResult, evalCase, evaluatedAt) : [];
          if (embeddings === undefined || !work.measureEmbeddings) return results;
          if (embeddings.similarity !== null) results.push(...(await embeddingSimilarityEvaluations(embeddings.similarity, caseResult, evalCase, evaluatedAt)));
          if (embeddings.tokenMatching !== null) results.push(...(await tokenMatchingEvaluations(embeddings.tokenMatching, caseResult, evalCase, evaluatedAt)));
          return results;
        },
        cases: resources.store.cases,
        sink: resources.store.judgeResults,
        concurrency: config.judge.concurrency,
        sinkRetry: resources.retry,
        log,
        onDurable: (judged) => alerts?.observe(metricSamples(judged)),
        attribution: resources.attribution,
      });
    }
  }
  return success(await startOnlineStage({ dispatcher, queue, worker, judgeUsage, sampler, alerts }));
}
