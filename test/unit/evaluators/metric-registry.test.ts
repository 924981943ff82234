/**
 * The metric registry: every metric name used anywhere — root-cause steps,
 * gates, the gate file, aggregates, dashboards and alert rules — is one that
 * an evaluator produces, and every metric an evaluator registers can apply to
 * some request. Names are read back from what users meet: the committed gate
 * file, the generated dashboard JSON and alert-rule files, and the sources of
 * the folders that name metrics.
 */
import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { describe, test } from "node:test";
import { parse } from "yaml";
import { parseGateFile } from "../../../contracts/gate-file.js";
import { createDefaultRegistry } from "../../../evaluators/default-registry.js";
import { derivedGateMetrics } from "../../../evaluators/gates/gate-metrics.js";
import { EMBEDDING_SIMILARITY_LAYER, embeddingSimilarityMetrics } from "../../../evaluators/embeddings/embedding-similarity.js";
import { TOKEN_MATCHING_LAYER, tokenMatchingMetrics } from "../../../evaluators/embeddings/token-matching-similarity.js";
import { JUDGE_METRICS } from "../../../evaluators/judge/judge.js";
import { isJudgeUsageMetric } from "../../../evaluators/judge/judge-usage-metrics.js";
import { rubricFor } from "../../../evaluators/judge/rubrics/rubric-registry.js";
import { isMetricName, METRIC } from "../../../evaluators/metric-catalog.js";
import { METRIC_LAYERS } from "../../../evaluators/metric-keys.js";
import { NAMED_AGGREGATES } from "../../../dashboards/source/aggregate-metrics.js";
import { ALERT_RULES_FILE, DASHBOARD_FILES, GATE_FILE, projectRoot } from "../../../dashboards/source/generated-files.js";
import { resolveGateMetric } from "../../../dashboards/source/gate-metrics.js";
import { richOfflineRequest } from "./metric-registry-fixtures.js";

const registry = createDefaultRegistry();
const produced = new Set<string>([...registry.list().flatMap((evaluator) => evaluator.metrics.map((metric) => metric.name)), ...JUDGE_METRICS, ...Object.keys(embeddingSimilarityMetrics), ...Object.keys(tokenMatchingMetrics)]);

/** Metric names compared with the `metric` column of metric_values in SQL text. */
function metricNamesInSql(sql: string): string[] {
  if (!sql.includes("metric_values")) return [];
  const names: string[] = [];
  for (const match of sql.matchAll(/\bmetric\s*=\s*'([^']*)'/g)) names.push(match[1]!);
  for (const match of sql.matchAll(/\bmetric\s+IN\s*\(([^)]*)\)/g)) for (const quoted of match[1]!.matchAll(/'([^']*)'/g)) names.push(quoted[1]!);
  return names;
}

function rawSqlIn(node: unknown, found: string[] = []): string[] {
  if (Array.isArray(node)) for (const item of node) rawSqlIn(item, found);
  else if (node !== null && typeof node === "object") {
    for (const [key, value] of Object.entries(node)) {
      if (key === "rawSql" && typeof value === "string") found.push(value);
      else rawSqlIn(value, found);
    }
  }
  return found;
}

const unknownNames = (names: Iterable<string>) => [...new Set(names)].filter((name) => !produced.has(name)).sort();

async function gateRules() {
  const parsed = parseGateFile(parse(await readFile(path.join(projectRoot, GATE_FILE), "utf8")));
  assert.ok(parsed.ok, "the gate file parses");
  return parsed.value;
}

describe("metric keys", () => {
  test("the typed keys are exactly the metrics the evaluators and judge rubrics produce, each key its own name", () => {
    assert.deepEqual(Object.keys(METRIC).sort(), [...produced].sort());
    for (const [key, name] of Object.entries(METRIC)) assert.equal(name, key);
    assert.equal(isMetricName("query_rewrite_uplift"), false);
  });

  test("every evaluator and every judge rubric declares a layer of the seed's evaluation system", () => {
    for (const evaluator of registry.list()) assert.ok(METRIC_LAYERS.includes(evaluator.layer), `${evaluator.id} has layer ${evaluator.layer}`);
    for (const metric of JUDGE_METRICS) assert.ok(METRIC_LAYERS.includes(rubricFor(metric).layer), `judge rubric ${metric} has layer ${rubricFor(metric).layer}`);
    assert.equal(EMBEDDING_SIMILARITY_LAYER, "generation");
    assert.equal(TOKEN_MATCHING_LAYER, "generation");
    const layerOf = new Map(registry.list().map((evaluator) => [evaluator.id, evaluator.layer]));
    assert.deepEqual(
      ["retrieval.ranking", "context.coverage", "answer.reference_match", "online.permission_leak", "performance.usage"].map((id) => layerOf.get(id)),
      ["retrieval", "context", "generation", "boundaries", "engineering"],
    );
  });
});

describe("references to metrics", () => {
  test("the gate file names only metrics an evaluator produces or aggregates defined over them", async () => {
    const rules = await gateRules();
    assert.ok(rules.length > 0);
    const problems: string[] = [];
    for (const rule of rules) {
      // The release gate: a derived dataset metric, else the mean of the per-case metric of that name.
      if (!Object.hasOwn(derivedGateMetrics, rule.metric) && !produced.has(rule.metric)) problems.push(`release gate ${rule.section}.${rule.metric}: no evaluator produces it and no dataset metric is defined by that name`);
      // The alert rule: an aggregate over stored metrics.
      const resolution = resolveGateMetric(rule.metric);
      if (resolution.kind === "aggregate") for (const stored of unknownNames(resolution.aggregate.storedMetrics)) problems.push(`alert rule ${rule.section}.${rule.metric} reads ${stored}, which no evaluator produces`);
    }
    assert.deepEqual(problems, []);
  });

  test("every aggregate definition reads only produced metrics", () => {
    const read = NAMED_AGGREGATES.flatMap((aggregate) => [...aggregate.storedMetrics, ...metricNamesInSql(`metric_values ${aggregate.value}`)]);
    assert.ok(read.length > 0);
    assert.deepEqual(unknownNames(read), []);
  });

  test("the generated dashboards and alert rules query only produced metrics", async () => {
    const names: string[] = [];
    for (const file of Object.keys(DASHBOARD_FILES)) for (const sql of rawSqlIn(JSON.parse(await readFile(path.join(projectRoot, file), "utf8")))) names.push(...metricNamesInSql(sql));
    for (const sql of rawSqlIn(parse(await readFile(path.join(projectRoot, ALERT_RULES_FILE), "utf8")))) names.push(...metricNamesInSql(sql));
    // The scan reads the panels' queries: recall, faithfulness, latency and the abstention pair among them.
    for (const expected of [METRIC.recall_at_5, METRIC.faithfulness, METRIC.latency_ms, METRIC.abstention_correct]) assert.ok(names.includes(expected), `the dashboards query ${expected}`);
    // The judge's usage (its tokens and cost), which every judge result records beside its score (judge-usage-metrics.ts), is produced too.
    assert.deepEqual(unknownNames(names).filter((name) => !isJudgeUsageMetric(name)), []);
  });

  test("root cause, gates, aggregates and dashboard sources name metrics through the typed keys, not string literals", async () => {
    // Aggregate and gate names that coincide with a metric's name on purpose (the dataset-level rate of the per-case metric).
    const aggregateNames = new Set(NAMED_AGGREGATES.map((aggregate) => aggregate.name));
    const found: string[] = [];
    for (const folder of ["evaluators/root-cause", "evaluators/gates", "evaluators/aggregate", "dashboards/source"]) {
      for (const entry of await readdir(path.join(projectRoot, folder))) {
        // The collector health board reads the health snapshots (spans_dropped, sink_write_ms), not evaluator metrics.
        if (!entry.endsWith(".ts") || entry === "collector-health-dashboard.ts") continue;
        const source = await readFile(path.join(projectRoot, folder, entry), "utf8");
        source.split("\n").forEach((line, index) => {
          if (/^\s*(\*|\/\/|\/\*)/.test(line)) return;
          for (const match of line.matchAll(/["'`]([a-z][a-z0-9_]*)["'`]/g)) {
            const name = match[1]!;
            const metricLike = produced.has(name) || /_(at_\d+|rate|uplift|accuracy|score|ms)$/.test(name);
            if (metricLike && !aggregateNames.has(name) && !Object.hasOwn(derivedGateMetrics, name)) found.push(`${folder}/${entry}:${index + 1} "${name}"`);
          }
        });
      }
    }
    assert.deepEqual(found, []);
  });
});

describe("registered metrics can apply", () => {
  test("every rule metric applies to a request that records everything a trace can carry", () => {
    const { evalCase, caseResult } = richOfflineRequest();
    const neverApplied: string[] = [];
    for (const evaluator of registry.list()) {
      const output = evaluator.evaluate({ caseResult, evalCase });
      assert.equal(output.inputError, undefined, `${evaluator.id}: ${output.inputError}`);
      for (const metric of evaluator.metrics) {
        const value = output.values[metric.name];
        if (value === undefined || !value.applicable) neverApplied.push(`${evaluator.id} ${metric.name}: ${value === undefined ? "not produced" : value.reason}`);
      }
    }
    assert.deepEqual(neverApplied, []);
  });
});
