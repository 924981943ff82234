/**
 * What the evaluation worker counted for each recently evaluated trace, so that a per-trace counter
 * (ragscope_malformed_attributes_total, ragscope_unknown_cases_total) counts a trace once even when late spans
 * re-open it. A re-opened trace is rebuilt from all its spans, earlier ones included, and evaluated again: counting
 * its whole evaluation again counted the earlier spans' notes twice. Here only what it holds beyond what was counted
 * for it before is counted.
 *
 * Bounded like the assembler's memory of released traces (AssemblerOptions.recentTraceMemory, in traces): only
 * traces for which something was counted are kept, the least recently evaluated forgotten first. The assembler
 * re-opens only a trace among its last `recentTraceMemory` releases, so a trace it re-opens is still remembered here;
 * past that bound late spans make a trace of their own, holding only them, and what they carry is new. Should a
 * re-opened trace be forgotten here nonetheless, all it holds is counted again.
 */
export class CountedOncePerTrace<Item extends string> {
  /** Per trace (its assembly key), the most counted of each item so far; insertion order is evaluation order. */
  private readonly counted = new Map<string, Partial<Record<Item, number>>>();

  constructor(private readonly capacity: number) {}

  /** Traces remembered now. */
  get size(): number {
    return this.counted.size;
  }

  /**
   * Given how many of each item a trace's evaluation holds now, returns how many to add to the counters. A trace
   * that was not re-opened holds only spans that were never evaluated, so all it holds is new, whatever was
   * remembered under its key. An item that a re-opened trace holds fewer of than before (a span received again
   * without the attribute) adds nothing: a counter never goes back.
   */
  increase(traceKey: string, reopened: boolean, holds: Partial<Record<Item, number>>): Partial<Record<Item, number>> {
    const earlier: Partial<Record<Item, number>> = reopened ? (this.counted.get(traceKey) ?? {}) : {};
    this.counted.delete(traceKey);
    const added: Partial<Record<Item, number>> = {};
    const remembered: Partial<Record<Item, number>> = { ...earlier };
    let anything = Object.keys(earlier).length > 0;
    for (const item of Object.keys(holds) as Item[]) {
      const now = holds[item] ?? 0;
      const before = earlier[item] ?? 0;
      if (now <= before) continue;
      added[item] = now - before;
      remembered[item] = now;
      anything = true;
    }
    if (anything && this.capacity > 0) {
      this.counted.set(traceKey, remembered);
      const oldest = this.counted.keys().next();
      if (this.counted.size > this.capacity && oldest.done !== true) this.counted.delete(oldest.value);
    }
    return added;
  }
}
