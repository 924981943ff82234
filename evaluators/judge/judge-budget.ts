/**
 * The judge's spending limit per hour (issue 6: "a spending limit per hour that
 * stops sampling, and says so, when reached").
 *
 * A rolling one-hour window: every judge call records what it cost; while the
 * spending of the last hour is at or above the limit, `exhausted` is true and
 * `reason` says why and when spending resumes. Judges sharing one budget check
 * it before every HTTP attempt and answer `grader_error budget_exhausted`
 * without calling the endpoint; the sampler reads `exhausted` to stop sampling.
 */
const HOUR_MS = 60 * 60 * 1000;

export interface JudgeBudgetOptions {
  /** Maximum spending per rolling hour, in the pricing's currency. */
  limitPerHour: number;
  now?: () => number;
}

export class JudgeBudget {
  readonly limitPerHour: number;
  private readonly now: () => number;
  private readonly spending: Array<{ at: number; cost: number }> = [];

  constructor(options: JudgeBudgetOptions) {
    if (!(options.limitPerHour >= 0) || !Number.isFinite(options.limitPerHour)) throw new RangeError(`limitPerHour must be a finite number >= 0, got ${options.limitPerHour}`);
    this.limitPerHour = options.limitPerHour;
    this.now = options.now ?? Date.now;
  }

  record(cost: number): void {
    if (!Number.isFinite(cost) || cost < 0) throw new RangeError(`judge cost must be a finite number >= 0, got ${cost}`);
    if (cost > 0) this.spending.push({ at: this.now(), cost });
  }

  spentInLastHour(): number {
    this.forgetOlderThanAnHour();
    return this.spending.reduce((total, entry) => total + entry.cost, 0);
  }

  get exhausted(): boolean {
    return this.spentInLastHour() >= this.limitPerHour;
  }

  /** When spending drops below the limit again (ms since epoch), or null when it is not exhausted. */
  resumesAt(): number | null {
    if (!this.exhausted) return null;
    let spent = this.spentInLastHour();
    for (const entry of this.spending) {
      spent -= entry.cost;
      if (spent < this.limitPerHour) return entry.at + HOUR_MS;
    }
    // A zero limit never resumes.
    return null;
  }

  get reason(): string | null {
    if (!this.exhausted) return null;
    const resumesAt = this.resumesAt();
    const when = resumesAt === null ? "raise the limit to resume" : `resumes at ${new Date(resumesAt).toISOString()}`;
    return `judge spending limit reached: ${round(this.spentInLastHour())} spent in the last hour, limit ${round(this.limitPerHour)} per hour; ${when}`;
  }

  private forgetOlderThanAnHour(): void {
    const cutoff = this.now() - HOUR_MS;
    while (this.spending.length > 0 && (this.spending[0] as { at: number }).at <= cutoff) this.spending.shift();
  }
}

function round(value: number): string {
  return String(Math.round(value * 1e6) / 1e6);
}
