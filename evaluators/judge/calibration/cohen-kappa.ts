/**
 * Agreement between two raters on the same items — a human and a judge, or two
 * humans (seed 004 §九.4 "统计 Cohen's Kappa 等一致性指标"; §九.3 "定期监测
 * Judge 与人工评分一致率").
 *
 * For categories 1..K and a K×K table n[i][j] (rows: the first rater, columns:
 * the second), N items:
 *   p_o   = Σ_i n[i][i] / N                              observed agreement
 *   p_e   = Σ_k (row_k / N) · (col_k / N)                agreement expected by chance
 *   kappa = (p_o − p_e) / (1 − p_e)                      Cohen (1960)
 * Weighted kappa for ordered categories (Cohen 1968), with disagreement
 * weights w[i][j] = |i−j| / (K−1) (linear) or ((i−j) / (K−1))² (quadratic):
 *   kappa_w = 1 − Σ w[i][j]·n[i][j] / Σ w[i][j]·row_i·col_j / N
 *
 * Kappa is undefined when p_e = 1 (both raters used one and the same category
 * for every item) or there are no items: it is then null with the reason —
 * never NaN.
 */

export interface AgreementStatistics {
  items: number;
  /** Category order of the table's rows and columns. */
  categories: string[];
  /** table[i][j]: items the first rater put in categories[i] and the second in categories[j]. */
  table: number[][];
  /** p_o, the share of items both raters put in the same category. */
  percentAgreement: number | null;
  /** p_e. */
  expectedAgreement: number | null;
  kappa: number | null;
  linearWeightedKappa: number | null;
  quadraticWeightedKappa: number | null;
  /** Why kappa is null, when it is. */
  note: string | null;
}

export type RatingPair = readonly [first: string, second: string];

/**
 * `categories` fixes the order (needed for the weighted kappas) and may list
 * categories nobody used; categories found in the pairs but not listed are
 * appended in order of first appearance.
 */
export function cohenKappa(pairs: readonly RatingPair[], categories: readonly string[] = []): AgreementStatistics {
  const order = [...categories];
  for (const [first, second] of pairs) {
    if (!order.includes(first)) order.push(first);
    if (!order.includes(second)) order.push(second);
  }
  const index = new Map(order.map((category, position) => [category, position]));
  const size = order.length;
  const table = Array.from({ length: size }, () => new Array<number>(size).fill(0));
  for (const [first, second] of pairs) {
    const row = table[index.get(first) as number] as number[];
    const column = index.get(second) as number;
    row[column] = (row[column] as number) + 1;
  }
  const items = pairs.length;
  if (items === 0) {
    return { items, categories: order, table, percentAgreement: null, expectedAgreement: null, kappa: null, linearWeightedKappa: null, quadraticWeightedKappa: null, note: "no paired items" };
  }
  const cell = (row: number, column: number) => (table[row] as number[])[column] as number;
  const rowTotals = order.map((_, row) => order.reduce((total, __, column) => total + cell(row, column), 0));
  const columnTotals = order.map((_, column) => order.reduce((total, __, row) => total + cell(row, column), 0));
  const observed = order.reduce((total, _, position) => total + cell(position, position), 0) / items;
  const expected = order.reduce((total, _, position) => total + ((rowTotals[position] as number) / items) * ((columnTotals[position] as number) / items), 0);
  const undefinedKappa = 1 - expected <= 1e-12;
  const weighted = (weight: (row: number, column: number) => number): number | null => {
    let observedDisagreement = 0;
    let expectedDisagreement = 0;
    for (let row = 0; row < size; row += 1) {
      for (let column = 0; column < size; column += 1) {
        observedDisagreement += weight(row, column) * cell(row, column);
        expectedDisagreement += (weight(row, column) * (rowTotals[row] as number) * (columnTotals[column] as number)) / items;
      }
    }
    return expectedDisagreement <= 1e-12 ? null : 1 - observedDisagreement / expectedDisagreement;
  };
  const span = Math.max(1, size - 1);
  return {
    items,
    categories: order,
    table,
    percentAgreement: observed,
    expectedAgreement: expected,
    kappa: undefinedKappa ? null : (observed - expected) / (1 - expected),
    linearWeightedKappa: weighted((row, column) => Math.abs(row - column) / span),
    quadraticWeightedKappa: weighted((row, column) => ((row - column) / span) ** 2),
    note: undefinedKappa ? "kappa is undefined: both raters put every item in the same single category (chance agreement is 1)" : null,
  };
}
