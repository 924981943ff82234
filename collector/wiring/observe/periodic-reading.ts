/**
 * A value read in the background for /metrics: /metrics is rendered
 * synchronously, so a gauge whose value takes a query serves the last
 * reading. A failed reading (the engine closing, a busy server) leaves no
 * value until the next one succeeds, rather than the one before it: a gauge
 * then has no sample, not a stale one. Readings asked for while one runs
 * share it.
 */
export class PeriodicReading<Value> {
  private current: Value | null = null;
  private timer: NodeJS.Timeout | null = null;
  private reading: Promise<void> | null = null;

  constructor(
    private readonly read: () => Promise<Value | null>,
    private readonly intervalMs: number,
  ) {}

  /** The last successful reading; null before the first, after a failed one, or when the reader had nothing to say. */
  get last(): Value | null {
    return this.current;
  }

  /** Reads now, then every interval until stop(). */
  start(): Promise<void> {
    this.timer = setInterval(() => void this.refresh(), this.intervalMs);
    // The reading never keeps the process alive on its own.
    this.timer.unref();
    return this.refresh();
  }

  /** One reading now (shared with one already running). */
  refresh(): Promise<void> {
    this.reading ??= this.read()
      .then(
        (value) => void (this.current = value),
        () => void (this.current = null),
      )
      .finally(() => (this.reading = null));
    return this.reading;
  }

  /** No reading after this resolves: call it before the store closes. */
  async stop(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await this.reading;
  }
}
