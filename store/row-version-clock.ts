/**
 * The clock of one writer's row versions (store/clickhouse/result-rows.ts rowVersion): the millisecond of each write,
 * strictly after every one it gave before. Row versions decide which copy of a row a ReplacingMergeTree keeps and,
 * across one case's requests, which request is the newest (store/clickhouse/newest-row.ts NEWEST_REQUEST_ORDER). Two
 * writes in one millisecond of a plain clock got one version, and then the newest request was the one the list shows
 * first, not the one written last: a case sent again whose two requests were written in one millisecond could open
 * its "newest" request with no evaluations, the later write's Evaluation Results (same ids, same row keys) having
 * replaced the earlier's. Taking max(clock, last + 1) makes a later write of this writer always win.
 *
 * One clock is shared by the writers of one store (the result sink and the judge result sink, which both write
 * case_results), so a later write of one process wins whichever of them wrote. Across processes (two collectors, or
 * a collector and a judge worker) a tie stays possible: each has its own clock, and two of them may write one
 * millisecond; the list's order then decides, as newest-row.ts says. Within one write, every row has the write's
 * version (a case sent again twice in one batch ties the same way): a version per row would move the versions ahead
 * of the clock by a batch's size at every write.
 *
 * The versions run ahead of the clock only while writes come faster than one a millisecond, by one millisecond a
 * write, and fall back onto it as soon as the clock passes them.
 */
export class RowVersionClock {
  private last = Number.NEGATIVE_INFINITY;

  constructor(private readonly now: () => number = Date.now) {}

  /** The clock's millisecond, or the one after the last given when the clock has not passed it. */
  next(): number {
    const clockMs = Math.max(Math.floor(this.now()), this.last + 1);
    this.last = clockMs;
    return clockMs;
  }
}

/**
 * Which version each item of a write takes: a new one for the write (RowVersionClock.next), except an item whose write
 * failed, which keeps the version that write used. A retried write then sends the rows it sent before, so the rows an
 * insert stored before it failed and those the retry stores carry one version, and the retry does not overtake a
 * write that came after the first attempt. Items are the objects the writer's caller hands over (the evaluation
 * worker retries with the same objects); a retried item that is a new object with the same content takes a new
 * version, which is harmless: its rows are the same but newer. Entries die with their items (WeakMap).
 */
export class RetriedVersions<Item extends object> {
  private readonly failed = new WeakMap<Item, number>();

  constructor(private readonly clock: RowVersionClock) {}

  /** The version of each item of a write: a failed write's for its items, one new version shared by the others. */
  forWrite(): (item: Item) => number {
    let fresh: number | undefined;
    return (item) => this.failed.get(item) ?? (fresh ??= this.clock.next());
  }

  /** The write of `items` failed: their retry keeps the versions `versionOf` gave them. */
  failedWith(items: readonly Item[], versionOf: (item: Item) => number): void {
    for (const item of items) this.failed.set(item, versionOf(item));
  }

  /** The write of `items` succeeded: a later write of the same objects is a new write. */
  written(items: readonly Item[]): void {
    for (const item of items) this.failed.delete(item);
  }
}
