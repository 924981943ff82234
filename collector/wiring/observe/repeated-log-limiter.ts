/**
 * Rate limit for log entries that repeat: the first entry of a kind is
 * written, the same kind again within `windowMs` of it is only counted, and
 * when the window ends one summary says how many were left out ("N more like
 * this in the last 60 s"). The next entry of that kind after the window is
 * written in full and opens a new window, so a condition that lasts (Kafka
 * down for an hour) shows one full entry and one summary per window per kind,
 * not a line per retry.
 *
 * What "the same kind" means is the caller's `keyOf` (kafka-log-lines.ts:
 * level, namespace and the message with its numbers masked). Time is the
 * injected `clock`, so tests drive windows without waiting. Windows end when
 * an entry of their kind arrives after them or when `flushEnded` runs (the
 * process calls it on a timer); `flushAll` ends every window at once (when the
 * process stops), so no count is lost.
 *
 * Memory is bounded: at most `maxKinds` kinds are tracked at a time; entries
 * of further kinds are written in full (never dropped without a count).
 */
export interface RepeatSummary<Entry> {
  /** The entry written when the window opened. */
  readonly first: Entry;
  /** Entries of its kind left out since. */
  readonly suppressed: number;
  /** How long the window lasted, in whole seconds (at most the window's length). */
  readonly seconds: number;
}

export interface RepeatedLogLimiterOptions<Entry> {
  readonly windowMs: number;
  readonly clock: () => number;
  readonly keyOf: (entry: Entry) => string;
  readonly write: (entry: Entry) => void;
  readonly writeSummary: (summary: RepeatSummary<Entry>) => void;
  /** Kinds tracked at most at a time; default 1,000. */
  readonly maxKinds?: number;
}

interface Window<Entry> {
  readonly openedAt: number;
  readonly first: Entry;
  suppressed: number;
}

const defaultMaxKinds = 1_000;

export class RepeatedLogLimiter<Entry> {
  private readonly windows = new Map<string, Window<Entry>>();
  private suppressedEntries = 0;

  constructor(private readonly options: RepeatedLogLimiterOptions<Entry>) {}

  /** Entries left out so far (each also counted in a summary, written or still pending). */
  get suppressedTotal(): number {
    return this.suppressedEntries;
  }

  accept(entry: Entry): void {
    const key = this.options.keyOf(entry);
    const now = this.options.clock();
    const open = this.windows.get(key);
    if (open !== undefined) {
      if (now - open.openedAt < this.options.windowMs) {
        open.suppressed += 1;
        this.suppressedEntries += 1;
        return;
      }
      this.close(key, open, now);
    }
    this.options.write(entry);
    if (this.windows.size < (this.options.maxKinds ?? defaultMaxKinds)) this.windows.set(key, { openedAt: now, first: entry, suppressed: 0 });
  }

  /** Ends the windows whose time is up, writing their summaries. */
  flushEnded(): void {
    const now = this.options.clock();
    for (const [key, window] of this.windows) if (now - window.openedAt >= this.options.windowMs) this.close(key, window, now);
  }

  /** Ends every window now (the process stops), writing the summaries of those that left entries out. */
  flushAll(): void {
    const now = this.options.clock();
    for (const [key, window] of this.windows) this.close(key, window, now);
  }

  private close(key: string, window: Window<Entry>, now: number): void {
    this.windows.delete(key);
    if (window.suppressed === 0) return;
    const seconds = Math.ceil(Math.min(Math.max(now - window.openedAt, 0), this.options.windowMs) / 1000);
    this.options.writeSummary({ first: window.first, suppressed: window.suppressed, seconds });
  }
}
