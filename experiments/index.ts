/// <reference types="node" preserve="true" />
// The declarations name Node's types (NodeJS.ProcessEnv, Buffer): kept in the emitted .d.ts, so an application whose
// compiler does not load every @types package by itself (TypeScript 6 and later) still resolves them.
/** Experiments: run a task over a dataset through the collector, evaluate, compare with a baseline, gate (`ragscope/experiments`). */
export { runExperiment, ExperimentSetupError, type ExperimentOptions, type ExperimentProgress, type ExperimentResult } from "./run-experiment.js";
export type { ExperimentTask, TaskAnswer, TaskContext } from "./task.js";
export type { CaseRun } from "./run-case.js";
export type { LineageValues } from "./lineage.js";
export { exactMcNemar, type McNemarResult } from "./compare/exact-mcnemar.js";
export { pairedBootstrap, type BootstrapInterval } from "./compare/paired-bootstrap.js";
export type { RunComparison, MetricComparison } from "./compare/compare-runs.js";
export type { CaseConsistency } from "./answer-consistency.js";
export { resultsDocument } from "./output/results-json.js";
export { junitReport } from "./output/experiment-junit.js";
