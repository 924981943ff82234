/**
 * A budget of bytes shared by all requests: the decompressed bodies the
 * receiver holds at once. Each request takes from it chunk by chunk as its
 * body inflates and gives everything back once it is answered, so the memory
 * held for bodies is bounded however many clients send at once.
 */
export interface BudgetShare {
  /** Takes `bytes` more for this request; false (and nothing taken) when the budget has not that much left. */
  take(bytes: number): boolean;
  /** Gives back all this request took; safe to call more than once. */
  release(): void;
}

export class ByteBudget {
  private used = 0;

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
      release: () => {
        this.used -= held;
        held = 0;
      },
    };
  }
}
