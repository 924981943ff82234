/**
 * The release gate as a JUnit suite ("release gate"), beside the cases' suite
 * in `ragscope eval --junit`: CI systems show the JUnit file, not the exit
 * code's reason, and a file of passing cases read green while the gate blocked
 * the job. So the suite holds what decided:
 * - one testcase per gate rule (implied rules included): passed → a plain
 *   testcase; failed → <failure type="failed"> with the rule, its value and
 *   threshold; not measured → <failure type="not_measured"> — or <skipped>
 *   when --allow-missing allowed it (a measurement not made is never a pass);
 *   its evaluations errored → <error> with their error types (the gate could
 *   not decide);
 * - "veto cases", when the run has any: a <failure> naming the veto cases that
 *   did not pass, which block whatever the rules say;
 * - "run problems", when the run has any (interrupted, cases not evaluated in
 *   time, a baseline with no results, a judge mostly failing): an <error>
 *   listing them — the decision is "could not decide".
 * Whenever the decision is not "passed", at least one testcase is a failure or
 * an error.
 */
import type { GateRuleResult, ReleaseGateResult } from "../../evaluators/gates/release-gate.js";
import { formatFixed } from "../../evaluators/format-fixed.js";
import { escapeXml, type JunitSuite } from "./junit-report.js";

export const GATE_SUITE_NAME = "release gate";

export interface GateSuiteInput {
  /** Null when the gate was not checked (an interrupted run: its problem says so). */
  gate: ReleaseGateResult | null;
  /** How many of the run's cases are veto cases (P0 or metadata.veto: true). */
  vetoCases: number;
  /** The veto cases that did not pass. */
  vetoed: readonly string[];
  /** Why the decision could not be made, when it could not. */
  problems: readonly string[];
}

const shownValue = (value: number | null) => (value === null ? "not measured" : Number.isInteger(value) ? String(value) : formatFixed(value, 4));

function ruleTestcase(item: GateRuleResult, allowed: boolean): string[] {
  const name = `${item.rule.section}.${item.rule.metric} ${item.rule.threshold}`;
  const open = `  <testcase name="${escapeXml(name)}" classname="${escapeXml(GATE_SUITE_NAME)}" time="0"`;
  const summary = `${item.rule.section}.${item.rule.metric} = ${shownValue(item.value)}, threshold ${item.rule.threshold}`;
  const element = (tag: "failure" | "error", type: string, message: string) => [`${open}>`, `    <${tag} message="${escapeXml(message)}" type="${escapeXml(type)}">${escapeXml(item.reason)}</${tag}>`, `  </testcase>`];
  switch (item.status) {
    case "passed":
      return [`${open}/>`];
    case "failed":
      return element("failure", "failed", `${summary}: failed`);
    case "not_available":
      if (allowed) return [`${open}>`, `    <skipped message="${escapeXml(`${summary}: could not be measured (${item.reason}); allowed by --allow-missing — not a pass`)}"/>`, `  </testcase>`];
      return element("failure", "not_measured", `${summary}: could not be measured, which blocks unless --allow-missing allows it`);
    case "error":
      return element("error", Object.keys(item.errors ?? {}).join(", ") || "error", `${summary}: its evaluations errored, so the gate could not decide`);
  }
}

export function gateSuite(input: GateSuiteInput): JunitSuite {
  const lines: string[] = [];
  let failures = 0;
  let errors = 0;
  let skipped = 0;
  let tests = 0;
  // Not-measured rules were allowed exactly when the gate passed with some of them (release-gate.ts: passed only with every rule passed, unless allowed).
  const allowed = input.gate !== null && input.gate.passed;
  for (const item of input.gate?.rules ?? []) {
    tests += 1;
    if (item.status === "failed" || (item.status === "not_available" && !allowed)) failures += 1;
    if (item.status === "error") errors += 1;
    if (item.status === "not_available" && allowed) skipped += 1;
    lines.push(...ruleTestcase(item, allowed));
  }
  if (input.vetoCases > 0) {
    tests += 1;
    const open = `  <testcase name="veto cases (P0 or metadata.veto: true)" classname="${escapeXml(GATE_SUITE_NAME)}" time="0"`;
    if (input.vetoed.length === 0) lines.push(`${open}/>`);
    else {
      failures += 1;
      const message = `${input.vetoed.length} of ${input.vetoCases} veto case(s) did not pass, which blocks the release whatever the rules say: ${input.vetoed.join(", ")}`;
      lines.push(`${open}>`, `    <failure message="${escapeXml(message)}" type="veto">${escapeXml(input.vetoed.join("\n"))}</failure>`, `  </testcase>`);
    }
  }
  if (input.problems.length > 0) {
    tests += 1;
    errors += 1;
    const open = `  <testcase name="run problems" classname="${escapeXml(GATE_SUITE_NAME)}" time="0"`;
    const message = `the gate could not decide: ${input.problems.length} problem(s) with the run`;
    lines.push(`${open}>`, `    <error message="${escapeXml(message)}" type="undecided">${escapeXml(input.problems.join("\n"))}</error>`, `  </testcase>`);
  }
  return { name: GATE_SUITE_NAME, tests, failures, errors, skipped, time: "0", testcases: lines };
}
