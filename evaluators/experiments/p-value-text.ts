/** A p-value as the report prints it: four decimals, or two significant digits below 0.0001 where four decimals read 0. */
export function pValueText(value: number): string {
  return value < 0.0001 ? `p=${value.toExponential(1)}` : `p=${value.toFixed(4)}`;
}
