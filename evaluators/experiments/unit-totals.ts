/**
 * Observations summed per randomisation unit (a user or a session): requests
 * of one unit are not independent, so the unit, not the request, is the
 * sample in clustered statistics.
 */
export interface UnitTotal {
  readonly unit: string;
  /** Sum of the unit's values. */
  readonly sum: number;
  /** Number of the unit's observations. */
  readonly count: number;
}

export function unitTotals(observations: readonly { unit: string; value: number }[]): UnitTotal[] {
  const totals = new Map<string, { sum: number; count: number }>();
  for (const observation of observations) {
    const total = totals.get(observation.unit) ?? { sum: 0, count: 0 };
    total.sum += observation.value;
    total.count += 1;
    totals.set(observation.unit, total);
  }
  return [...totals.entries()].map(([unit, total]) => ({ unit, ...total }));
}
