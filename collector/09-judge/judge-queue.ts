/**
 * The durable judge queue between the rule stage and the judge workers (issue
 * 6 "Judging never stalls the stream"). Two implementations with one contract:
 * in-process (embedded, in-process-judge-queue.ts) and a Kafka topic
 * (kafka-judge-queue.ts).
 *
 * Contract: a message handed to the handler is acknowledged — removed, or its
 * offset committed — only after the handler returned success, i.e. after the
 * judge results are durable; on failure it is delivered again later. The
 * queue is separate from the span stream, so a slow or failing judge never
 * holds the span stream's offsets.
 */
import type { Result } from "../../core/result.js";
import type { JudgeRequestMessage } from "./judge-request-message.js";

export interface JudgeQueueFailure {
  retriable: boolean;
  message: string;
  retryAfterMs?: number;
}

export type JudgeBatchHandler = (messages: readonly JudgeRequestMessage[]) => Promise<Result<void, JudgeQueueFailure>>;

export interface JudgeQueue {
  enqueue(messages: readonly JudgeRequestMessage[]): Promise<Result<void, JudgeQueueFailure>>;
  /** Starts delivering batches to the handler (once). */
  start(handler: JudgeBatchHandler): Promise<void>;
  /** True when this process has nothing queued or in flight (Kafka: nothing in flight). */
  isIdle(): boolean;
  /** Stops delivering after the batch in flight; unacknowledged messages stay for the next start. */
  close(): Promise<void>;
}
