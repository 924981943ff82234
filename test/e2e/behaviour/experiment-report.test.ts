/**
 * Acceptance of online A/B experiments, end to end. A simulated stream with
 * known true rates per variant (test/data/experiments/simulated-stream.json,
 * drawn by simulated-stream.py, which also records statsmodels' and SciPy's
 * statistics on the drawn data) is replayed through the SDK and the embedded collector
 * (test/support/simulated-experiment-stream.ts: assignVariant, traceRequest,
 * late user events over OTLP/HTTP); `ragscope experiment report` then runs as a subprocess on that
 * store, and its JSON is checked against
 * - the truth: each 95 % interval covers the true difference, the decisions
 *   name the changed metrics, the SRM stream is flagged and decides nothing;
 * - the independent computation: differences, intervals and p-values equal
 *   statsmodels' (clustered by user: OLS with CR0 errors; one request per
 *   user: proportions_ztest and the Wald interval), the SRM chi-square SciPy's.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import type { ExperimentReport } from "../../../evaluators/experiments/experiment-report.js";
import { simulatedStreams as data, storeSimulatedStreams } from "../../support/simulated-experiment-stream.js";

const ragscope = fileURLToPath(new URL("../../../bin/ragscope.js", import.meta.url));

function trueDifference(metric: string): number {
  const rates = data.true_rates[metric]!;
  return rates.treatment! - rates.control!;
}

function report(dataDir: string, experiment: string): ExperimentReport {
  const child = spawnSync(process.execPath, [ragscope, "experiment", "report", "--id", experiment, "--data-dir", dataDir, "--mde", "0.5", "--json"], {
    encoding: "utf8",
    env: { ...process.env, RAGSCOPE_CLICKHOUSE_URL: "" },
  });
  assert.equal(child.status, 0, child.stderr);
  return JSON.parse(child.stdout) as ExperimentReport;
}

function comparisonOf(result: ExperimentReport, metric: string) {
  const found = result.metrics.find((item) => item.metric === metric);
  assert.ok(found, `${metric} is in the report`);
  const comparison = found.comparisons.find((item) => item.variant === "treatment");
  assert.ok(comparison?.comparison, `${metric} has a comparison`);
  return { ...comparison, comparison: comparison.comparison };
}

function close(actual: number | null, expected: number, tolerance: number, label: string): void {
  assert.ok(actual !== null && Math.abs(actual - expected) <= tolerance, `${label}: ${actual} vs ${expected}`);
}

describe("ragscope experiment report on a simulated online stream", () => {
  let dataDir: string;
  let clustered: ExperimentReport;
  let mismatched: ExperimentReport;

  before(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), "ragscope-experiment-"));
    await storeSimulatedStreams(dataDir);
    clustered = report(dataDir, data.clustered.experiment);
    mismatched = report(dataDir, data.srm.experiment);
  });

  after(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  test("traffic: every request and user of each variant, no user in two variants", () => {
    for (const [stream, result] of [[data.clustered, clustered], [data.srm, mismatched]] as const) {
      for (const variant of ["control", "treatment"]) {
        const own = stream.requests.filter((request) => request.variant === variant);
        const traffic = result.traffic.find((item) => item.variant === variant);
        assert.deepEqual([traffic?.requests, traffic?.units], [own.length, new Set(own.map((request) => request.user)).size], `${stream.experiment} ${variant}`);
      }
      assert.equal(result.unitsInSeveralVariants, 0);
    }
  });

  test("clustered by user: statsmodels' differences, intervals and p-values; intervals cover the truth", () => {
    for (const metric of ["like_rate", "handoff_rate", "copy_rate"]) {
      const { comparison } = comparisonOf(clustered, metric);
      const expected = data.clustered.expected[metric]!;
      assert.equal(comparison.method, "clustered_delta");
      close(comparison.difference, expected.difference, 1e-9, `${metric} difference`);
      close(comparison.lower, expected.lower, 1e-7, `${metric} lower`);
      close(comparison.upper, expected.upper, 1e-7, `${metric} upper`);
      close(comparison.pValue, expected.p_value, Math.max(1e-9, expected.p_value * 1e-5), `${metric} p`);
      assert.ok(comparison.lower <= trueDifference(metric) && trueDifference(metric) <= comparison.upper, `${metric}: the interval covers the true difference ${trueDifference(metric)}`);
    }
  });

  test("clustered: the decision names the true changes and no false one", () => {
    assert.equal(comparisonOf(clustered, "like_rate").verdict, "better");
    assert.equal(comparisonOf(clustered, "handoff_rate").verdict, "worse");
    assert.equal(comparisonOf(clustered, "copy_rate").verdict, "no_difference");
    assert.equal(clustered.sampleRatio?.mismatch, false);
    const decision = clustered.decisions.join("\n");
    assert.match(decision, /Variant treatment vs control: better on [^;]*like_rate/);
    assert.match(decision, /worse on [^;]*handoff_rate/);
    assert.match(decision, /no significant difference on [^;]*copy_rate/);
  });

  test("the SRM stream: SciPy's chi-square, flagged, nothing decided; statsmodels' two-proportion values", () => {
    assert.ok(mismatched.sampleRatio);
    close(mismatched.sampleRatio.chiSquare, data.srm.chi_square!, 1e-9, "chi-square");
    close(mismatched.sampleRatio.pValue, data.srm.srm_p_value!, data.srm.srm_p_value! * 1e-6, "SRM p");
    assert.equal(mismatched.sampleRatio.mismatch, true);
    assert.ok(mismatched.warnings.some((warning) => /sample ratio mismatch/.test(warning)));
    assert.match(mismatched.decisions[0]!, /no decision — the sample ratio mismatch/);
    for (const metric of ["like_rate", "handoff_rate", "copy_rate"]) {
      const { comparison, verdict } = comparisonOf(mismatched, metric);
      const expected = data.srm.expected[metric]!;
      assert.equal(comparison.method, "two_proportion_z");
      close(comparison.difference, expected.difference, 1e-12, `${metric} difference`);
      close(comparison.lower, expected.lower, 1e-7, `${metric} lower`);
      close(comparison.upper, expected.upper, 1e-7, `${metric} upper`);
      close(comparison.pValue, expected.p_value, Math.max(1e-12, expected.p_value * 1e-5), `${metric} p`);
      assert.equal(verdict, "untrustworthy");
    }
  });

  test("lineage: the variants differ in the generator model only", () => {
    const model = clustered.lineage.find((field) => field.field === "generator_model");
    assert.deepEqual(model?.values, { control: ["model-control"], treatment: ["model-treatment"] });
    assert.deepEqual(clustered.lineage.filter((field) => field.differs).map((field) => field.field), ["generator_model"]);
    assert.ok(!clustered.warnings.some((warning) => /more than one main variable/.test(warning)));
  });

  test("the text report a person reads, and an unknown experiment", () => {
    const text = spawnSync(process.execPath, [ragscope, "experiment", "report", "--id", data.clustered.experiment, "--data-dir", dataDir, "--mde", "0.5"], { encoding: "utf8", env: { ...process.env, RAGSCOPE_CLICKHOUSE_URL: "" } });
    assert.equal(text.status, 0, text.stderr);
    assert.match(text.stdout, /sample ratio: chi-square [\d.]+, p=[\d.]+ — ok/);
    assert.match(text.stdout, /citation_click_rate[\s\S]*note: A high citation-click rate is not necessarily good/);
    assert.match(text.stdout, /Decision\n {2}Variant treatment vs control: better on/);
    const unknown = spawnSync(process.execPath, [ragscope, "experiment", "report", "--id", "no-such-experiment", "--data-dir", dataDir], { encoding: "utf8", env: { ...process.env, RAGSCOPE_CLICKHOUSE_URL: "" } });
    assert.equal(unknown.status, 2);
    assert.match(unknown.stderr, /no request of experiment "no-such-experiment".*stored experiments: exp-clustered, exp-srm/);
  });
});
