/**
 * Dead letters kept in memory, for the embedded collector (its receiver
 * validates OTLP before publishing, so these are rare). Counted always; the
 * last `capacity` letters are kept for inspection and the rest are counted as
 * evicted, never silently lost.
 */
import type { DeadLetter, DeadLetterHandler } from "./evaluation-worker.js";

export class MemoryDeadLetters implements DeadLetterHandler {
  readonly letters: DeadLetter[] = [];
  readonly counters = { received: 0, evicted: 0 };

  constructor(private readonly capacity = 1_000) {}

  async send(letter: DeadLetter): Promise<void> {
    this.counters.received += 1;
    this.letters.push(letter);
    if (this.letters.length > this.capacity) {
      this.letters.shift();
      this.counters.evicted += 1;
    }
  }
}
