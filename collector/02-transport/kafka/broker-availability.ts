/**
 * Whether Kafka is known to be reachable for the receiver's producer, from
 * what was last seen: the outcome of the last produce request, or of a cheap
 * periodic metadata request (the probe), whichever came later.
 *
 * kafkajs does not say when a producer lost its brokers: its DISCONNECT event
 * fires only on an explicit disconnect, and a send to a broker that is down
 * fails only after its retries (seconds). So:
 * - a produce request that failed because no broker answered (isUnreachable)
 *   marks Kafka unreachable; one that succeeded marks it reachable;
 * - the probe runs every `intervalMs` while Kafka is reachable (so /readyz
 *   notices an outage without traffic) and every `retryIntervalMs` while it
 *   is not (so the receiver takes spans again soon after Kafka returns); a
 *   probe that fails or takes longer than `probeTimeoutMs` marks it
 *   unreachable.
 * While Kafka is unreachable the receiver answers 503 + Retry-After at once,
 * without reading the body, instead of holding each request through kafkajs's
 * retries (/readyz says why, too).
 */
export interface BrokerAvailabilityOptions {
  /** One cheap request to the cluster (metadata of the span topic); rejects when Kafka cannot be used. */
  probe: () => Promise<void>;
  intervalMs: number;
  retryIntervalMs: number;
  probeTimeoutMs: number;
  clock?: () => number;
  /**
   * Told once when Kafka becomes unreachable and once when it answers again: the
   * receiver answers 503 meanwhile, and without these lines its log shows only
   * kafkajs's connection errors, not what the receiver does about them.
   */
  log?: (line: string) => void;
}

export class BrokerAvailability {
  private unavailable: { reason: string; since: number } | null = null;
  private timer: NodeJS.Timeout | null = null;
  private probing: Promise<void> | null = null;
  private stopped = false;
  /** What a probe that outlived its timeout failed with in the end (kafkajs says ECONNREFUSED only after its own retries). */
  private lateError: string | null = null;
  private readonly clock: () => number;

  constructor(private readonly options: BrokerAvailabilityOptions) {
    this.clock = options.clock ?? Date.now;
  }

  /** Why Kafka is known to be unreachable now, with since when; null while it is reachable as far as is known. */
  get unavailableReason(): string | null {
    if (this.unavailable === null) return null;
    const seconds = Math.round((this.clock() - this.unavailable.since) / 1000);
    return `Kafka unreachable for ${seconds} s: ${this.unavailable.reason}`;
  }

  reachable(): void {
    if (this.unavailable !== null) {
      const seconds = Math.round((this.clock() - this.unavailable.since) / 1000);
      this.options.log?.(`Kafka answers again after ${seconds} s unreachable: taking spans again`);
    }
    this.unavailable = null;
    this.lateError = null;
  }

  unreachable(reason: string): void {
    if (this.unavailable === null) {
      this.unavailable = { reason, since: this.clock() };
      this.options.log?.(
        `Kafka unreachable (${reason}): answering OTLP requests with 503 and Retry-After, which clients retry, and /readyz with 503 until it answers again`,
      );
    } else this.unavailable.reason = reason;
  }

  start(): void {
    this.stopped = false;
    this.schedule();
  }

  /** Stops probing; a probe in flight ends within probeTimeoutMs and schedules no other. */
  stop(): void {
    this.stopped = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  /** One probe now (a probe already in flight is shared). */
  probe(): Promise<void> {
    this.probing ??= this.probeNow().finally(() => {
      this.probing = null;
    });
    return this.probing;
  }

  private schedule(): void {
    if (this.stopped) return;
    const delay = this.unavailable === null ? this.options.intervalMs : this.options.retryIntervalMs;
    this.timer = setTimeout(() => {
      void this.probe().finally(() => this.schedule());
    }, delay);
    // The probe never keeps the process alive.
    this.timer.unref();
  }

  private async probeNow(): Promise<void> {
    let timeout: NodeJS.Timeout | undefined;
    const noAnswer = new Error(`no answer within ${this.options.probeTimeoutMs} ms`);
    const timedOut = new Promise<never>((_, reject) => {
      timeout = setTimeout(() => reject(noAnswer), this.options.probeTimeoutMs);
      timeout.unref();
    });
    const attempt = this.options.probe();
    let settled = false;
    // A refused connection is retried by kafkajs for seconds, past the probe's timeout, before it says why
    // ("Connection error: connect ECONNREFUSED …"): when it does, /readyz and the 503s say it, not only the timeout.
    attempt.catch((error: unknown) => {
      if (!settled || this.unavailable === null) return;
      this.lateError = messageOf(error);
      this.unreachable(this.noAnswerReason(noAnswer));
    });
    try {
      await Promise.race([attempt, timedOut]);
      this.reachable();
    } catch (error) {
      this.unreachable(error === noAnswer ? this.noAnswerReason(noAnswer) : `metadata request failed: ${messageOf(error)}`);
    } finally {
      settled = true;
      clearTimeout(timeout);
    }
  }

  private noAnswerReason(noAnswer: Error): string {
    // The cause first when kafkajs has told it; the timeout alone only says that nothing answered.
    if (this.lateError === null) return `metadata request failed: ${noAnswer.message}`;
    return `metadata request failed: ${this.lateError} (kafkajs's answer to an earlier probe; the latest had ${noAnswer.message})`;
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
