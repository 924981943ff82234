/**
 * Where the embedded collector keeps dead letters: messages it acknowledged
 * and then could not evaluate into a stored result. Durable (ClickHouse:
 * table `dead_letters`, migration 0011), so a restart keeps them, and listed
 * by `ragscope dead-letters`.
 */
export interface DeadLetterRecord {
  letterId: string;
  receivedAt: string;
  /** undecodable, invalid_case_result, … */
  code: string;
  reason: string;
  /** The trace the message belongs to, when known (the message key). */
  traceId: string;
  contentType: string;
  body: Uint8Array;
}

export interface DeadLetterSummary extends Omit<DeadLetterRecord, "body"> {
  bodyBytes: number;
}

export interface DeadLetterStore {
  save(letter: DeadLetterRecord): Promise<void>;
  /** Newest first. */
  list(limit: number): Promise<DeadLetterSummary[]>;
  /** The body of one letter, to inspect or re-send it; null when no such letter. */
  body(letterId: string): Promise<Uint8Array | null>;
  count(): Promise<number>;
}
