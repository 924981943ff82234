/**
 * The exact McNemar test on paired pass/fail verdicts: of the n cases whose
 * verdict flipped, b passed only in the baseline and c only in the candidate;
 * under no change each flip goes either way with probability 1/2, so the
 * two-sided p-value is min(1, 2 · P(X ≤ min(b, c))) for X ~ Binomial(n, 1/2)
 * — what statsmodels' `mcnemar(table, exact=True)` returns. No flips: p = 1.
 */
export interface McNemarResult {
  /** Passed in the baseline, not in the candidate. */
  baselineOnly: number;
  /** Passed in the candidate, not in the baseline. */
  candidateOnly: number;
  pValue: number;
}

export function exactMcNemar(baselineOnly: number, candidateOnly: number): McNemarResult {
  const flips = baselineOnly + candidateOnly;
  if (flips === 0) return { baselineOnly, candidateOnly, pValue: 1 };
  const smaller = Math.min(baselineOnly, candidateOnly);
  // Sum the binomial probabilities in log space: 2^-n underflows past n ≈ 1074.
  let logTerm = -flips * Math.LN2;
  const logTerms = [logTerm];
  for (let k = 1; k <= smaller; k += 1) {
    logTerm += Math.log((flips - k + 1) / k);
    logTerms.push(logTerm);
  }
  const largest = Math.max(...logTerms);
  const cumulative = Math.exp(largest) * logTerms.reduce((sum, value) => sum + Math.exp(value - largest), 0);
  return { baselineOnly, candidateOnly, pValue: Math.min(1, 2 * cumulative) };
}
