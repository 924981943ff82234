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
}

export class BrokerAvailability {
  private unavailable: { reason: string; since: number } | null = null;
  private timer: NodeJS.Timeout | null = null;
  private probing: Promise<void> | null = null;
  private stopped = false;
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
    this.unavailable = null;
  }

  unreachable(reason: string): void {
    if (this.unavailable === null) this.unavailable = { reason, since: this.clock() };
    else this.unavailable.reason = reason;
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
    const timedOut = new Promise<never>((_, reject) => {
      timeout = setTimeout(() => reject(new Error(`no answer within ${this.options.probeTimeoutMs} ms`)), this.options.probeTimeoutMs);
      timeout.unref();
    });
    try {
      await Promise.race([this.options.probe(), timedOut]);
      this.reachable();
    } catch (error) {
      this.unreachable(`metadata request failed: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      clearTimeout(timeout);
    }
  }
}
