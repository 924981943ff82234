/** DeadLetterStore in memory (tests; nothing outlives the process). */
import type { DeadLetterRecord, DeadLetterStore, DeadLetterSummary } from "../ports/dead-letter-store.js";

export class MemoryDeadLetterStore implements DeadLetterStore {
  readonly letters: DeadLetterRecord[] = [];

  async save(letter: DeadLetterRecord): Promise<void> {
    this.letters.push({ ...letter, body: letter.body.slice() });
  }

  async list(limit: number): Promise<DeadLetterSummary[]> {
    const newestFirst = [...this.letters].sort((first, second) => (first.receivedAt === second.receivedAt ? (first.letterId < second.letterId ? 1 : -1) : first.receivedAt < second.receivedAt ? 1 : -1));
    return newestFirst.slice(0, limit).map(({ body, ...rest }) => ({ ...rest, bodyBytes: body.byteLength }));
  }

  async body(letterId: string): Promise<Uint8Array | null> {
    return this.letters.find((letter) => letter.letterId === letterId)?.body.slice() ?? null;
  }

  async count(): Promise<number> {
    return this.letters.length;
  }
}
