/**
 * When an evaluator stops reading Kafka, and when it reads again
 * (DESIGN.md "Delivery guarantees": memory is bounded; when the sink is slow
 * the consumer pauses).
 *
 * Three things fill memory: evaluated traces the sink has not taken yet (the
 * worker's backlog — non-zero only while writes fail), spans waiting in open
 * traces, and whatever else the heap holds. Reading pauses
 * - while the sink has a backlog: reading more would only pile up results;
 * - at `maxBufferedSpans` open spans, before the assembler's own bound would
 *   release traces early as partial;
 * - when the heap in use passes 85 % of `maxHeapBytes` while the evaluator
 *   holds data (a heap full of garbage while nothing is held is not a reason:
 *   pausing would not free it, and reading on lets the collector run).
 * Reading resumes with hysteresis, so it does not flap: no backlog, open spans
 * down to half the bound, and the heap below 70 % (or nothing held).
 *
 * Between the pause and the bound sits at most one fetch per partition, which
 * the consumer's fetch sizes keep small relative to the heap bound.
 */

export interface BackpressureLimits {
  maxBufferedSpans: number;
  maxHeapBytes: number;
}

export interface BufferState {
  /** Evaluated traces waiting for the sink. */
  sinkBacklog: number;
  /** Spans held in open traces. */
  openSpans: number;
  heapUsedBytes: number;
}

export type PauseReason = "sink_backlog" | "buffered_spans" | "heap";

export const heapPauseFraction = 0.85;
export const heapResumeFraction = 0.7;

export function pauseReason(state: BufferState, limits: BackpressureLimits): PauseReason | null {
  if (state.sinkBacklog > 0) return "sink_backlog";
  if (state.openSpans >= limits.maxBufferedSpans) return "buffered_spans";
  const holdsData = state.openSpans > 0 || state.sinkBacklog > 0;
  if (holdsData && state.heapUsedBytes >= heapPauseFraction * limits.maxHeapBytes) return "heap";
  return null;
}

export function canResume(state: BufferState, limits: BackpressureLimits): boolean {
  if (state.sinkBacklog > 0) return false;
  if (state.openSpans > limits.maxBufferedSpans / 2) return false;
  return state.openSpans === 0 || state.heapUsedBytes < heapResumeFraction * limits.maxHeapBytes;
}

/** Fetch sizes that keep one round of fetched data small next to the heap bound. */
export function fetchSizes(maxMessageBytes: number, maxHeapBytes: number): { maxBytesPerPartition: number; maxBytes: number } {
  const mebibyte = 1024 * 1024;
  const maxBytesPerPartition = Math.max(maxMessageBytes, mebibyte);
  const maxBytes = Math.max(maxBytesPerPartition, Math.min(10 * mebibyte, Math.floor(maxHeapBytes / 32)));
  return { maxBytesPerPartition, maxBytes };
}
