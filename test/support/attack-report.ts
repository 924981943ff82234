/**
 * The security suite's summary (test/security/): each attack test records
 * what it sent and how the system held, with the peak resident memory it
 * measured; the test runner prints them as one table after the run. Written
 * as JSON lines to the file the runner names in RAGSCOPE_ATTACK_REPORT
 * (nothing is written when a test file runs without the runner).
 */
import { appendFileSync } from "node:fs";

export const attackReportVariable = "RAGSCOPE_ATTACK_REPORT";

export interface AttackOutcome {
  attack: string;
  /** How the system answered, in a few words: "413, nothing stored", "refused, noted on the Case Result". */
  outcome: string;
  /** Peak resident memory of the process under attack, in MiB, when measured. */
  peakRssMb?: number | null;
}

export function recordAttack(outcome: AttackOutcome): void {
  const file = process.env[attackReportVariable];
  if (!file) return;
  appendFileSync(file, `${JSON.stringify({ peakRssMb: null, ...outcome })}\n`);
}

/** This process's peak resident memory so far, in MiB (for attacks on a collector in the test's own process). */
export function residentMemoryMb(): number {
  return Math.round(process.resourceUsage().maxRSS / 1024);
}

/** The table printed after a run: one line per attack. */
export function formatAttackTable(lines: readonly AttackOutcome[]): string {
  const header = ["attack", "outcome", "peak RSS"];
  const rows = lines.map((line) => [line.attack, line.outcome, line.peakRssMb === null || line.peakRssMb === undefined ? "—" : `${line.peakRssMb} MiB`]);
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const format = (row: string[]) => row.map((cell, column) => cell.padEnd(widths[column]!)).join("  ");
  return [`Security tests: ${lines.length} attacks`, format(header), format(widths.map((width) => "-".repeat(width))), ...rows.map(format)].join("\n");
}
