/**
 * Dead letters of the embedded collector, kept in the store (DeadLetterStore:
 * the `dead_letters` table), so nothing the receiver acknowledged is lost
 * silently and a restart keeps them. Each letter is written before the worker
 * goes on (its message then counts as handled). A write the store refuses is
 * retried a few times; a letter still unsaved stays in memory, is retried
 * with the next letter and on `flush` (at close), and is counted
 * (`ragscope_dead_letters_unsaved`). The last letters are also kept in memory
 * for tests and logs.
 */
import { randomUUID } from "node:crypto";
import type { DeadLetterRecord, DeadLetterStore } from "../../store/ports/dead-letter-store.js";
import type { DeadLetter, DeadLetterHandler } from "./evaluation-worker.js";

export interface DurableDeadLetterOptions {
  /** Letters kept in memory for inspection (the store keeps all). */
  recent?: number;
  /** Unsaved letters held while the store refuses writes; past it the oldest is dropped and counted as lost (and logged). */
  maxUnsaved?: number;
  attempts?: number;
  now?: () => number;
  sleep?: (milliseconds: number) => Promise<void>;
  log?: (line: string) => void;
}

export class DurableDeadLetters implements DeadLetterHandler {
  readonly letters: DeadLetter[] = [];
  readonly counters = { received: 0, saved: 0, retries: 0, lost: 0 };
  private readonly unsaved: DeadLetterRecord[] = [];
  /** Set by `beginClose`: the collector is stopping. */
  private closing = false;
  /** The store refused a letter since the stop began: later letters wait for the last `flush` instead of each retrying. */
  private refusedWhileClosing = false;
  private readonly recent: number;
  private readonly maxUnsaved: number;
  private readonly attempts: number;
  private readonly now: () => number;
  private readonly sleep: (milliseconds: number) => Promise<void>;
  private readonly log: (line: string) => void;

  private constructor(
    private readonly store: DeadLetterStore,
    /** Letters the store held when this collector started (earlier runs). */
    readonly storedBefore: number,
    options: DurableDeadLetterOptions,
  ) {
    this.recent = options.recent ?? 100;
    this.maxUnsaved = options.maxUnsaved ?? 10_000;
    this.attempts = options.attempts ?? 3;
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? ((milliseconds) => new Promise((resolve) => setTimeout(resolve, milliseconds)));
    this.log = options.log ?? ((line) => console.error(line));
  }

  static async open(store: DeadLetterStore, options: DurableDeadLetterOptions = {}): Promise<DurableDeadLetters> {
    return new DurableDeadLetters(store, await store.count(), options);
  }

  /** Letters in the store: earlier runs' and this one's. */
  get stored(): number {
    return this.storedBefore + this.counters.saved;
  }

  get pending(): number {
    return this.unsaved.length;
  }

  async send(letter: DeadLetter): Promise<void> {
    this.counters.received += 1;
    this.letters.push(letter);
    if (this.letters.length > this.recent) this.letters.shift();
    this.unsaved.push({
      letterId: randomUUID(),
      receivedAt: new Date(this.now()).toISOString(),
      code: letter.code ?? "undecodable",
      reason: letter.reason,
      traceId: letter.message.key ?? "",
      contentType: letter.message.headers?.["content-type"] ?? "",
      body: letter.message.value,
    });
    if (this.unsaved.length > this.maxUnsaved) {
      const dropped = this.unsaved.shift()!;
      this.counters.lost += 1;
      this.log(`ragscope: the store refused dead letters for too long; letter ${dropped.letterId} (${dropped.code}, trace ${dropped.traceId || "unknown"}) is lost: ${dropped.reason}`);
    }
    if (this.closing && this.refusedWhileClosing) return;
    await this.flush();
  }

  /**
   * The collector is stopping and about to hand over what the store still refuses, perhaps thousands of results: once
   * the store refuses one, the rest wait for the last `flush` rather than each retrying the first unsaved letter (with
   * its backoff, ~0.35 s a letter on a full disk: minutes past a supervisor's grace period, whose SIGKILL then lost
   * every one of them unsaid).
   */
  beginClose(): void {
    this.closing = true;
  }

  /** Writes every unsaved letter; those the store still refuses stay for the next try. */
  async flush(): Promise<void> {
    while (this.unsaved.length > 0) {
      const next = this.unsaved[0]!;
      if (!(await this.save(next))) {
        if (this.closing) this.refusedWhileClosing = true;
        return;
      }
      this.unsaved.shift();
      this.counters.saved += 1;
    }
  }

  private async save(record: DeadLetterRecord): Promise<boolean> {
    for (let attempt = 1; attempt <= this.attempts; attempt += 1) {
      try {
        await this.store.save(record);
        return true;
      } catch (error) {
        if (attempt === this.attempts) {
          this.log(`ragscope: writing dead letter ${record.letterId} failed (${error instanceof Error ? error.message : String(error)}); kept in memory and retried with the next letter and at close`);
          return false;
        }
        this.counters.retries += 1;
        await this.sleep(100 * attempt);
      }
    }
    return false;
  }
}
