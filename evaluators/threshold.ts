/**
 * Threshold expressions in the seed's gate syntax (004 §十三): `">= 0.90"`,
 * `"<= 5000"`, `"= 0"`, also `">"`, `"<"`, `"=="`, `"!="`. One parser for case
 * rubrics, release gates and alert rules.
 */
import { THRESHOLD_SYNTAX } from "../contracts/gate-file.js";
import { failure, success, type Result } from "../core/result.js";

export type Comparator = ">=" | "<=" | ">" | "<" | "=" | "!=";

export interface Threshold {
  comparator: Comparator;
  value: number;
  source: string;
}

/** The same syntax the gate file contract accepts (contracts/gate-file.ts). */
const PATTERN = THRESHOLD_SYNTAX;

export function parseThreshold(expression: string): Result<Threshold, string> {
  const match = PATTERN.exec(expression);
  if (!match) return failure(`"${expression}" is not a threshold; write a comparison such as ">= 0.9", "<= 5000" or "= 0"`);
  const comparator = (match[1] === "==" ? "=" : match[1]) as Comparator;
  return success({ comparator, value: Number(match[2]), source: expression.trim() });
}

/** Tolerates binary rounding: 0.1 + 0.2 satisfies "= 0.3". */
const EPSILON = 1e-9;

export function satisfies(value: number, threshold: Threshold): boolean {
  const difference = value - threshold.value;
  switch (threshold.comparator) {
    case ">=":
      return difference >= -EPSILON;
    case "<=":
      return difference <= EPSILON;
    case ">":
      return difference > EPSILON;
    case "<":
      return difference < -EPSILON;
    case "=":
      return Math.abs(difference) <= EPSILON;
    case "!=":
      return Math.abs(difference) > EPSILON;
  }
}
