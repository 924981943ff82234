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
 * case_results; the quarantine, the alert sink and the run lineage sink, whose rows of one key a later write must
 * replace too), so a later write of one process wins whichever of them wrote. Across processes (two collectors, or a
 * collector and a judge worker) a tie stays possible: each has its own clock, and two of them may write one
 * millisecond; the list's order then decides, as newest-row.ts says.
 *
 * Within one write, the requests of one Case Result id (a case sent again twice in one batch) take consecutive
 * versions in the order they arrived (RetriedVersions.forWrite), so the later request wins there too; before, they
 * shared the write's version and the list's order chose, whatever came last. Requests of different ids share the
 * write's version: no reader compares them (each table's rows, and the newest request, are chosen among one id's),
 * and a version per request would move the versions ahead of the clock by a batch's size at every write, where this
 * moves them by the most requests one id has in the write (one, but for a case sent again within the batch).
 *
 * The versions run ahead of the clock only while writes come faster than they take versions (one a millisecond, a
 * case sent again within a write taking one more), and fall back onto it as soon as the clock passes them.
 */
export class RowVersionClock {
  private last = Number.NEGATIVE_INFINITY;

  constructor(private readonly now: () => number = Date.now) {}

  /** The clock's millisecond, or the one after the last given when the clock has not passed it. */
  next(): number {
    return this.nextRange(1);
  }

  /** The first of `count` consecutive versions (at least one), each after every one given before: next() for a write that needs several. */
  nextRange(count: number): number {
    const first = Math.max(Math.floor(this.now()), this.last + 1);
    this.last = first + Math.max(1, Math.floor(count)) - 1;
    return first;
  }
}

/**
 * Which version each item of a write takes: a new one for the write (RowVersionClock), except an item whose write
 * failed, which keeps the version that write used. A retried write then sends the rows it sent before, so the rows an
 * insert stored before it failed and those the retry stores carry one version (its deduplication tokens stay those of
 * the failed write: tab-separated-batch.ts does not hash versions), and the retry does not overtake a write that came
 * after the first attempt. Items are the objects the writer's caller hands over (the evaluation worker retries with
 * the same objects); a retried item that is a new object with the same content takes a new version, which is
 * harmless: its rows are the same but newer. Entries die with their items (WeakMap).
 */
export class RetriedVersions<Item extends object> {
  private readonly failed = new WeakMap<Item, number>();

  constructor(private readonly clock: RowVersionClock) {}

  /**
   * The version of each item of a write, `arrival` being its items in the order they arrived: a failed write's for
   * its items; for the others one new version, plus one for each earlier new item of the same `keyOf` (its Case
   * Result id), so that of one id's requests in the write the later has the higher version — as of two writes.
   */
  forWrite(arrival: readonly Item[], keyOf: (item: Item) => string): (item: Item) => number {
    const offsets = new Map<Item, number>();
    const seen = new Map<string, number>();
    let count = 0;
    for (const item of arrival) {
      if (this.failed.has(item)) continue;
      const key = keyOf(item);
      const offset = seen.get(key) ?? 0;
      seen.set(key, offset + 1);
      offsets.set(item, offset);
      count = Math.max(count, offset + 1);
    }
    let first: number | undefined;
    // An item the arrival did not name (none, as the sinks call it) takes the write's first version, as every item did before.
    return (item) => this.failed.get(item) ?? (first ??= this.clock.nextRange(count)) + (offsets.get(item) ?? 0);
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

/** The key whose items of one write take versions of their own (RetriedVersions.forWrite): the request's Case Result id. */
export function caseResultIdOf(item: { caseResult: { case_result_id: string } }): string {
  return item.caseResult.case_result_id;
}
