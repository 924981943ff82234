/**
 * One call to the judge that several requests with the same inputs wait for
 * (cached-judge.ts). Each waiter stops waiting as soon as its own signal aborts
 * (a revoked Kafka partition, a closing queue), whatever the others do; the call
 * goes on for those still waiting and is aborted only when none is left. What
 * the call spent is reported once, by the first waiter it answers: the one that
 * started it, or the next one when that one left.
 */
import type { JudgeOutcome } from "./judge.js";

/**
 * How a wait ended. `own`: the call's outcome, with its usage for this waiter to report; `shared`: the same outcome,
 * whose usage another waiter reports; `left`: this waiter's signal aborted while others still wait for the call.
 */
export type SharedJudgeWait = { kind: "own" | "shared"; outcome: JudgeOutcome } | { kind: "left" };

export class SharedJudgeCall {
  private readonly controller = new AbortController();
  private waiting = 0;
  private usageReported = false;
  private settled = false;
  readonly outcome: Promise<JudgeOutcome>;

  /** Starts the call at once, with a signal of its own that aborts when every waiter has left. */
  constructor(call: (signal: AbortSignal) => Promise<JudgeOutcome>) {
    this.outcome = call(this.controller.signal);
    const settle = () => {
      this.settled = true;
    };
    this.outcome.then(settle, settle);
  }

  /** Still worth joining: neither answered nor abandoned by all its waiters. */
  get open(): boolean {
    return !this.settled && !this.controller.signal.aborted;
  }

  async wait(signal?: AbortSignal): Promise<SharedJudgeWait> {
    this.waiting += 1;
    const aborted = await settledOrAborted(this.outcome, signal);
    this.waiting -= 1;
    if (aborted) {
      if (this.waiting > 0) return { kind: "left" };
      // The last one waiting: nobody needs the verdict any more. The judge ends an aborted call at once, and its
      // outcome (what the attempts spent, the cost of an unanswered request not known) is reported by this waiter.
      this.controller.abort(signal?.reason);
    }
    const outcome = await this.outcome;
    if (this.usageReported) return { kind: "shared", outcome };
    this.usageReported = true;
    return { kind: "own", outcome };
  }
}

/** True when `signal` aborted before `pending` settled; the abort listener does not outlive the wait. */
async function settledOrAborted(pending: Promise<unknown>, signal: AbortSignal | undefined): Promise<boolean> {
  if (signal === undefined) {
    await pending;
    return false;
  }
  if (signal.aborted) return true;
  let stop = () => {};
  const aborted = new Promise<true>((resolve) => {
    const onAbort = () => resolve(true);
    stop = () => signal.removeEventListener("abort", onAbort);
    signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([pending.then(() => false), aborted]);
  } finally {
    stop();
  }
}
