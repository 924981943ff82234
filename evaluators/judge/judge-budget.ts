/**
 * The judge's spending limit per hour (issue 6: "a spending limit per hour that
 * stops sampling, and says so, when reached").
 *
 * A rolling one-hour window of what judge calls cost, kept as a hard ceiling:
 * before a call is sent, its worst-case cost (judge-pricing.ts
 * `worstCaseCost`: every prompt token it can be billed plus the configured max
 * output tokens) is reserved, and the call is refused — `budget_exhausted`,
 * no HTTP request — when the last hour's spending, the reservations of the
 * calls still in flight and its own would pass the limit. The answer settles
 * the reservation to what the call really cost; a call refused with an error
 * status releases it, and one that timed out settles its worst case (it may
 * still be billed: chat-judge-client.ts).
 * Checking the spending alone let every concurrent call through while none had
 * answered yet: a limit of 0.05 ended at 0.098.
 *
 * A call whose worst case is unknown (output is priced but no max output
 * tokens are configured) keeps the check it always had: it is admitted while
 * the last hour's spending is below the limit, and its cost is counted when it
 * answers — concurrent calls of that kind can pass the limit.
 *
 * The window is this object's, in this process's memory: the judges that
 * share the object share the limit; another process (an evaluator replica)
 * has its own, so N processes can spend N times the limit
 * (collector/wiring/online/judge-config.ts PER_PROCESS_SPENDING_LIMIT).
 *
 * `exhausted` tells the sampler to stop sampling: the spending reached the
 * limit, or the last call refused would still not fit beside it. Sampling on
 * would only turn every sampled trace into `budget_exhausted` grader errors.
 */
import { failure, success, type Result } from "../../core/result.js";

const HOUR_MS = 60 * 60 * 1000;

/**
 * Sums of binary fractions are not exact (0.1 + 0.2 > 0.3): a relative margin
 * far below any currency's smallest unit keeps a call that exactly fills the
 * limit from being refused for a rounding error.
 */
const ROUNDING_MARGIN = 1e-9;

export interface JudgeBudgetOptions {
  /** Maximum spending per rolling hour, in the pricing's currency. */
  limitPerHour: number;
  now?: () => number;
}

/** The part of the limit held for one call in flight. Settling or releasing twice does nothing. */
export interface BudgetReservation {
  /** The call answered: what it really cost is spent now, and the rest of the reservation freed. */
  settle(cost: number): void;
  /** The call failed without a usage to count: nothing is spent, the reservation is freed. */
  release(): void;
}

export class JudgeBudget {
  readonly limitPerHour: number;
  private readonly now: () => number;
  private readonly spending: Array<{ at: number; cost: number }> = [];
  private readonly held = new Set<{ cost: number }>();
  /** The worst case of the last call refused: while one like it would still not fit, the budget says it is exhausted. */
  private lastRefused: number | null = null;

  constructor(options: JudgeBudgetOptions) {
    if (!(options.limitPerHour >= 0) || !Number.isFinite(options.limitPerHour)) throw new RangeError(`limitPerHour must be a finite number >= 0, got ${options.limitPerHour}`);
    this.limitPerHour = options.limitPerHour;
    this.now = options.now ?? Date.now;
  }

  /**
   * Holds `worstCase` of the limit for a call about to be sent, or says why
   * the call may not be sent. `worstCase` null: the call's cost has no known
   * bound, nothing can be held, and it is admitted while the last hour's
   * spending is below the limit.
   */
  reserve(worstCase: number | null): Result<BudgetReservation, string> {
    if (worstCase !== null && (!Number.isFinite(worstCase) || worstCase < 0)) throw new RangeError(`a judge call's worst-case cost must be a finite number >= 0, got ${worstCase}`);
    const spent = this.spentInLastHour();
    if (spent >= this.limitPerHour) return failure(this.reason ?? "judge spending limit reached");
    if (worstCase !== null) {
      const reserved = this.reserved;
      if (!this.fits(spent + reserved, worstCase)) {
        this.lastRefused = worstCase;
        const inFlight = reserved > 0 ? ` and ${round(reserved)} held for calls in flight` : "";
        return failure(`judge spending limit reached: this call may cost up to ${round(worstCase)}; ${round(spent)} spent in the last hour${inFlight}, limit ${round(this.limitPerHour)} per hour in this process`);
      }
    }
    const hold = { cost: worstCase ?? 0 };
    this.held.add(hold);
    let open = true;
    const close = (): boolean => {
      if (!open) return false;
      open = false;
      this.held.delete(hold);
      return true;
    };
    return success({
      settle: (cost) => {
        if (close()) this.record(cost);
      },
      release: () => {
        close();
      },
    });
  }

  /** Spending that went through no reservation. */
  record(cost: number): void {
    if (!Number.isFinite(cost) || cost < 0) throw new RangeError(`judge cost must be a finite number >= 0, got ${cost}`);
    if (cost > 0) this.spending.push({ at: this.now(), cost });
  }

  spentInLastHour(): number {
    this.forgetOlderThanAnHour();
    return this.spending.reduce((total, entry) => total + entry.cost, 0);
  }

  /** Held for calls in flight (summed afresh, so releases leave no rounding behind). */
  get reserved(): number {
    let total = 0;
    for (const hold of this.held) total += hold.cost;
    return total;
  }

  get exhausted(): boolean {
    return !this.admits(this.spentInLastHour());
  }

  /** When spending drops below the limit again (ms since epoch), or null when it is not exhausted. */
  resumesAt(): number | null {
    if (!this.exhausted) return null;
    let spent = this.spentInLastHour();
    for (const entry of this.spending) {
      spent -= entry.cost;
      if (this.admits(spent)) return entry.at + HOUR_MS;
    }
    // A zero limit, or a call that costs more than the whole limit, never resumes.
    return null;
  }

  get reason(): string | null {
    if (!this.exhausted) return null;
    const spent = this.spentInLastHour();
    const resumesAt = this.resumesAt();
    const when = resumesAt === null ? "raise the limit to resume" : `resumes at ${new Date(resumesAt).toISOString()}`;
    const call = spent < this.limitPerHour && this.lastRefused !== null ? `, and a judge call may cost up to ${round(this.lastRefused)}` : "";
    return `judge spending limit reached: ${round(spent)} spent in the last hour, limit ${round(this.limitPerHour)} per hour in this process${call}; ${when}`;
  }

  /** With this much spent, a call is admitted: below the limit, and room for one like the last refused. */
  private admits(spent: number): boolean {
    return spent < this.limitPerHour && (this.lastRefused === null || this.fits(spent, this.lastRefused));
  }

  private fits(committed: number, cost: number): boolean {
    return committed + cost <= this.limitPerHour * (1 + ROUNDING_MARGIN);
  }

  private forgetOlderThanAnHour(): void {
    const cutoff = this.now() - HOUR_MS;
    while (this.spending.length > 0 && (this.spending[0] as { at: number }).at <= cutoff) this.spending.shift();
  }
}

function round(value: number): string {
  return String(Math.round(value * 1e6) / 1e6);
}
