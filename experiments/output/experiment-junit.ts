/**
 * `ragscope eval --junit`: the cases' suite and the release gate's suite
 * (gate-junit-suite.ts) in one JUnit document, so a run the gate blocked or
 * could not decide is never a file of passing tests only. `ragscope gate
 * --junit` writes the release gate's suite alone: the cases were the eval's.
 */
import { isVetoCase } from "../../evaluators/gates/veto-cases.js";
import type { ExperimentResult } from "../run-experiment.js";
import { caseRows } from "./case-rows.js";
import { gateSuite, type GateSuiteInput } from "./gate-junit-suite.js";
import { caseSuite, junitDocument } from "./junit-report.js";

export function junitReport(result: ExperimentResult): string {
  // An interrupted run's suite says so in its name: its testcases are the cases that ran, not the dataset.
  const interruption = result.interruption;
  const name = `ragscope eval ${result.runId}${interruption ? ` (interrupted by ${interruption.reason}: ${interruption.storedCases} of ${interruption.plannedCases} cases stored)` : ""}`;
  const first = result.cases[0]!;
  const cases = caseSuite(name, `${first.dataset_id}@${first.dataset_version}`, caseRows(result.evaluated));
  const gate = gateSuite({ gate: result.gate, vetoCases: result.evaluated.filter(isVetoCase).length, vetoed: result.vetoed, problems: result.problems });
  // Each further repeat's gate is a suite of its own: a rule repeat 2 failed is a failure in the file, as it blocks the run.
  const repeats = result.repeatGates.map((repeat) => {
    const suite = gateSuite({ gate: repeat.gate, vetoCases: result.evaluated.filter(isVetoCase).length, vetoed: repeat.vetoed, problems: [] });
    return { ...suite, name: `${suite.name} (repeat ${repeat.repeat}, run ${repeat.runId})` };
  });
  return junitDocument([cases, gate, ...repeats], result.lineage.started_at);
}

/**
 * `ragscope gate --junit`: the same release gate suite as eval's, for a stored run, and a suite per further repeat of
 * a run of `eval --repeat N`, as eval writes them; `timestamp` is when the gate ran (ISO).
 */
export function gateJunitReport(input: GateSuiteInput, timestamp: string, repeats: readonly (GateSuiteInput & { repeat: number; runId: string })[] = []): string {
  const repeatSuites = repeats.map((repeat) => {
    const suite = gateSuite(repeat);
    return { ...suite, name: `${suite.name} (repeat ${repeat.repeat}, run ${repeat.runId})` };
  });
  return junitDocument([gateSuite(input), ...repeatSuites], timestamp);
}
