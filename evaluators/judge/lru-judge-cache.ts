/**
 * In-memory JudgeCache bounded by entry count, least recently used evicted
 * first (a Map keeps insertion order: re-inserting on read moves an entry to
 * the end). For the embedded collector and tests; the distributed collector
 * wants a shared cache so that every worker sees the same entries.
 */
import type { JudgeCache } from "./judge-cache.js";
import type { JudgeVerdict } from "./judge.js";

export class LruJudgeCache implements JudgeCache {
  private readonly entries = new Map<string, JudgeVerdict>();
  private evictedCount = 0;

  constructor(readonly capacity = 10_000) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`cache capacity must be a positive integer, got ${capacity}`);
  }

  async get(key: string): Promise<JudgeVerdict | undefined> {
    const verdict = this.entries.get(key);
    if (verdict === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, verdict);
    return verdict;
  }

  async set(key: string, verdict: JudgeVerdict): Promise<void> {
    this.entries.delete(key);
    this.entries.set(key, verdict);
    while (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
      this.evictedCount += 1;
    }
  }

  get size(): number {
    return this.entries.size;
  }

  get evicted(): number {
    return this.evictedCount;
  }
}
