/**
 * A budget of bytes shared by all requests: the decompressed bodies the
 * receiver holds at once. Each request takes from it chunk by chunk as its
 * body inflates and gives everything back once it is answered, so the memory
 * held for bodies is bounded however many clients send at once.
 *
 * A gRPC call cannot be read chunk by chunk: grpc-js buffers its whole message
 * before anyone sees it, and shows no one the length its frame declares. Such
 * a call waits for a reservation of the largest message before it is read
 * (`takeWhenAvailable`), in the order the calls asked, and keeps only the
 * message's own size once it arrived (`keepOnly`).
 */
export interface BudgetShare {
  /** Takes `bytes` more for this request; false (and nothing taken) when the budget has not that much left. */
  take(bytes: number): boolean;
  /** Gives back what this request holds beyond `bytes` (a reservation, once the size it stood for is known). */
  keepOnly(bytes: number): void;
  /** Gives back all this request took; safe to call more than once. */
  release(): void;
}

interface Waiter {
  share: BudgetShare;
  bytes: number;
  onTaken: () => void;
}

export class ByteBudget {
  private used = 0;
  /** Requests waiting for a reservation, first come first served. */
  private readonly waiters: Waiter[] = [];

  constructor(readonly limit: number) {}

  get inUse(): number {
    return this.used;
  }

  get exhausted(): boolean {
    return this.used >= this.limit;
  }

  share(): BudgetShare {
    let held = 0;
    return {
      take: (bytes) => {
        if (this.used + bytes > this.limit) return false;
        this.used += bytes;
        held += bytes;
        return true;
      },
      keepOnly: (bytes) => {
        if (held <= bytes) return;
        this.used -= held - bytes;
        held = bytes;
        this.serveWaiters();
      },
      release: () => {
        if (held === 0) return;
        this.used -= held;
        held = 0;
        this.serveWaiters();
      },
    };
  }

  /**
   * Takes `bytes` for `share` once the budget has them — at once when no one waits before — and then calls
   * `onTaken`. Gives back a function that withdraws the wait (it does nothing once the bytes were taken).
   */
  takeWhenAvailable(share: BudgetShare, bytes: number, onTaken: () => void): () => void {
    const waiter: Waiter = { share, bytes, onTaken };
    this.waiters.push(waiter);
    this.serveWaiters();
    return () => {
      const index = this.waiters.indexOf(waiter);
      if (index >= 0) this.waiters.splice(index, 1);
    };
  }

  private serveWaiters(): void {
    const served: Waiter[] = [];
    while (this.waiters.length > 0 && this.waiters[0]!.share.take(this.waiters[0]!.bytes)) served.push(this.waiters.shift()!);
    // Called once the queue is consistent: a waiter's callback may release or wait again.
    for (const waiter of served) waiter.onTaken();
  }
}
