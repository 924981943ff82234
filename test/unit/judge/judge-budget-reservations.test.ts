/**
 * The spending limit as a hard ceiling (evaluators/judge/judge-budget.ts): a
 * call reserves its worst-case cost before it is sent and is refused when the
 * hour's spending, the reservations in flight and its own would pass the
 * limit; its answer settles the reservation to the real cost, a failure
 * releases it. The clock is injected; every amount is exact in binary
 * (multiples of 1/64), so the sums are compared exactly.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { JudgeBudget, type BudgetReservation } from "../../../evaluators/judge/judge-budget.js";

const START = Date.parse("2026-07-08T10:00:00.000Z");
const MINUTE = 60_000;

function admitted(budget: JudgeBudget, worstCase: number | null): BudgetReservation {
  const reservation = budget.reserve(worstCase);
  assert.ok(reservation.ok, `refused: ${reservation.ok ? "" : reservation.error}`);
  return reservation.value;
}

describe("judge spending limit: reservations", () => {
  test("calls in flight hold their worst case: the one that would pass the limit is refused before it is sent", () => {
    const budget = new JudgeBudget({ limitPerHour: 1, now: () => START });
    const first = admitted(budget, 0.375);
    const second = admitted(budget, 0.375);
    // 0.375 + 0.375 held, nothing spent yet: a third 0.375 would make 1.125 > 1.
    const third = budget.reserve(0.375);
    assert.equal(third.ok, false);
    assert.match(third.ok ? "" : third.error, /this call may cost up to 0\.375; 0 spent in the last hour and 0\.75 held for calls in flight, limit 1 per hour in this process/);
    // A call that exactly fills what is left is admitted.
    const fourth = admitted(budget, 0.25);
    assert.equal(budget.reserved, 1);

    // The answers settle to what the calls really cost (less than their worst case), and free the rest.
    first.settle(0.125);
    second.settle(0.125);
    fourth.settle(0.25);
    assert.equal(budget.reserved, 0);
    assert.equal(budget.spentInLastHour(), 0.5);
    admitted(budget, 0.375);
  });

  test("a failed call releases its reservation and spends nothing; settling or releasing twice does nothing", () => {
    const budget = new JudgeBudget({ limitPerHour: 0.5, now: () => START });
    const failed = admitted(budget, 0.5);
    assert.equal(budget.reserve(0.5).ok, false, "the limit is held by the call in flight");
    failed.release();
    failed.settle(0.5);
    failed.release();
    assert.equal(budget.reserved, 0);
    assert.equal(budget.spentInLastHour(), 0);
    const next = admitted(budget, 0.5);
    next.settle(0.25);
    next.settle(0.25);
    assert.equal(budget.spentInLastHour(), 0.25, "one settlement counts once");
  });

  test("after a refusal the budget says it is exhausted (the sampler stops) until a call like it fits again", () => {
    let now = START;
    const budget = new JudgeBudget({ limitPerHour: 1, now: () => now });
    admitted(budget, 0.5).settle(0.5);
    now += 30 * MINUTE;
    admitted(budget, 0.5).settle(0.375);
    // 0.875 spent, below the limit: the old check would keep sampling, and every sampled call would be refused.
    assert.equal(budget.exhausted, false);
    assert.equal(budget.reserve(0.5).ok, false);
    assert.equal(budget.exhausted, true);
    assert.match(budget.reason ?? "", /0\.875 spent in the last hour, limit 1 per hour in this process, and a judge call may cost up to 0\.5; resumes at 2026-07-08T11:00:00\.000Z/);
    assert.equal(budget.resumesAt(), Date.parse("2026-07-08T11:00:00.000Z"));
    // An hour after the first spending it leaves the window: 0.375 + 0.5 fits.
    now = Date.parse("2026-07-08T11:00:00.000Z");
    assert.equal(budget.exhausted, false);
    admitted(budget, 0.5);
  });

  test("a call whose worst case is more than the whole limit is never sent, and sampling never resumes by itself", () => {
    const budget = new JudgeBudget({ limitPerHour: 0.25, now: () => START });
    assert.equal(budget.reserve(0.5).ok, false);
    assert.equal(budget.exhausted, true);
    assert.equal(budget.resumesAt(), null);
    assert.match(budget.reason ?? "", /raise the limit to resume/);
  });

  test("a call without a known worst case is admitted while the spending is below the limit, as before", () => {
    const budget = new JudgeBudget({ limitPerHour: 0.25, now: () => START });
    const unknown = admitted(budget, null);
    const another = admitted(budget, null);
    unknown.settle(0.25);
    another.settle(0.25);
    // Nothing could be held for them: both were sent, and the spending passed the limit.
    assert.equal(budget.spentInLastHour(), 0.5);
    assert.equal(budget.reserve(null).ok, false);
    assert.equal(budget.reserve(0).ok, false);
  });

  test("an invalid worst case is a bug", () => {
    const budget = new JudgeBudget({ limitPerHour: 1 });
    assert.throws(() => budget.reserve(Number.NaN), RangeError);
    assert.throws(() => budget.reserve(-1), RangeError);
  });
});
