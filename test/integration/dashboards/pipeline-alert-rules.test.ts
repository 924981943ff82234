/**
 * The pipeline's own alert rules (deploy/grafana/provisioning/alerting/
 * ragscope-pipeline-rules.yaml, from dashboards/source/pipeline-alert-rules.ts)
 * fire on a pipeline that loses or stops, and stay quiet on a healthy one:
 * before them a collector that stopped writing raised no alert (the gate rules
 * are silent without traffic). Each rule's query, with the plugin's macros
 * expanded over its window, runs on the ClickHouse engine against health
 * snapshots written through the store's health sink, as the collector roles
 * write them (every 15 s); its condition is then evaluated as Grafana's math
 * expression would. Each scenario has an hour of its own, recent enough for
 * collector_health's retention.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { parse } from "yaml";
import { executableSql, runQuery } from "../../../report/panel-data.js";
import { tableReferences } from "../../../report/qualify-tables.js";
import { PIPELINE_ALERT_RULES_FILE, projectRoot } from "../../../dashboards/source/generated-files.js";
import { ClickHouseHealthSink } from "../../../store/clickhouse/clickhouse-health-sink.js";
import type { HealthRow } from "../../../store/ports/health-sink.js";
import { temporaryStore, type TemporaryStore } from "../../support/temporary-store.js";

interface ProvisionedRule {
  uid: string;
  noDataState: string;
  data: { refId: string; relativeTimeRange?: { from: number; to: number }; model: { rawSql?: string; expression?: string; format?: number } }[];
}

const HOUR = 3_600_000;
const SNAPSHOT_MS = 15_000;
/** An hour a day back, on a whole hour: every scenario's times are offsets from it. */
const BASE = Math.floor((Date.now() - 24 * HOUR) / HOUR) * HOUR;
/** Each scenario's snapshots cover the 15 minutes before its end. */
const SCENARIOS = [
  "healthy",
  "dead letters",
  "dropped spans",
  "consumer stalled",
  "silent",
  "receiver refusing",
  "refusals now and then",
  "parts piling up",
  "parts piled up, merged since",
  "log events without spans",
  "log events now and then without spans",
] as const;
type Scenario = (typeof SCENARIOS)[number];
const endOf = (scenario: Scenario) => BASE + SCENARIOS.indexOf(scenario) * HOUR + 30 * 60_000;

/** The snapshots one evaluator instance writes in a scenario. */
function snapshots(scenario: Scenario): HealthRow[] {
  const rows: HealthRow[] = [];
  const end = endOf(scenario);
  const instance = `evaluator-${scenario.replaceAll(" ", "-")}`;
  for (let at = end - 15 * 60_000 + SNAPSHOT_MS; at <= end; at += SNAPSHOT_MS) {
    // A silent collector stopped writing ten minutes before the end.
    if (scenario === "silent" && at > end - 10 * 60_000) break;
    const base = { ts: new Date(at).toISOString(), instance, role: "evaluator" };
    const last = at + SNAPSHOT_MS > end;
    const stalled = scenario === "consumer stalled";
    rows.push(
      { ...base, metric: "traces_evaluated", kind: "delta", value: stalled ? 0 : 12 },
      { ...base, metric: "dead_letters", kind: "delta", value: scenario === "dead letters" && last ? 3 : 0 },
      { ...base, metric: "spans_dropped", kind: "delta", value: scenario === "dropped spans" && last ? 7 : 0 },
      { ...base, metric: "consumer_lag", kind: "gauge", value: stalled ? 100 : 4 },
      { ...base, metric: "store_largest_partition_parts", kind: "gauge", value: storeParts(scenario, at, end) },
      { ...base, metric: "store_parts_to_delay_insert", kind: "gauge", value: DELAY_INSERT },
      ...logEvents(scenario, base, last),
    );
    rows.push(...receiverSnapshot(scenario, at, end));
  }
  return rows;
}

/**
 * What became of the log events in a snapshot: none in most scenarios (an application without GenAI log records);
 * 2 joined and 3 waiting for spans that never came in each when the traces are sampled and the logs are not; 10 joined
 * in each and 4 waiting in the last when now and then a trace was sampled out.
 */
function logEvents(scenario: Scenario, base: { ts: string; instance: string; role: string }, last: boolean): HealthRow[] {
  const counts =
    scenario === "log events without spans" ? { joined: 2, waiting: 3 } : scenario === "log events now and then without spans" ? { joined: 10, waiting: last ? 4 : 0 } : null;
  if (counts === null) return [];
  return [
    { ...base, metric: "log_events_joined", kind: "delta", value: counts.joined },
    { ...base, metric: "log_events_trace_without_spans", kind: "delta", value: counts.waiting },
    { ...base, metric: "log_events_span_not_in_trace", kind: "delta", value: 0 },
  ];
}

/** The engine's parts_to_delay_insert as the store gauges report it. */
const DELAY_INSERT = 1_000;

/**
 * The store's fullest partition at `at`: 40 parts normally. Piling up, it climbs by 100 a minute over the scenario's
 * last ten minutes, to 1,040 at its end; piled up and merged since, it reached 940 ten minutes before the end and is
 * back at 40 in the last five (the rule reads the latest snapshot, not the window's highest).
 */
function storeParts(scenario: Scenario, at: number, end: number): number {
  const minutesLeft = (end - at) / 60_000;
  if (scenario === "parts piling up" && minutesLeft < 10) return 40 + Math.round((10 - minutesLeft) * 100);
  if (scenario === "parts piled up, merged since" && minutesLeft >= 5 && minutesLeft < 12) return 940;
  return 40;
}

/**
 * What the receiver in front of the evaluator writes at `at`: its OTLP requests accepted and refused. Kafka down for
 * the last 5 minutes: every request refused (503, not read: no span of them dropped); now and then: 6 refusals (a bad
 * token, a malformed body) among 10 accepted requests a snapshot, 3 % of them.
 */
function receiverSnapshot(scenario: Scenario, at: number, end: number): HealthRow[] {
  const base = { ts: new Date(at).toISOString(), instance: `receiver-${scenario.replaceAll(" ", "-")}`, role: "receiver", kind: "delta" as const };
  const outage = scenario === "receiver refusing" && at > end - 5 * 60_000;
  const refused = outage ? 3 : scenario === "refusals now and then" && at > end - 90_000 ? 1 : 0;
  return [
    { ...base, metric: "requests_accepted", value: outage ? 0 : 10 },
    { ...base, metric: "requests_refused", value: refused },
    { ...base, metric: "requests_refused_unavailable", value: outage ? refused : 0 },
  ];
}

/** Grafana's math condition `$B <op> <number>` for a value of B. */
function fires(expression: string, value: number): boolean {
  const match = /^\$B (<|>) (-?[\d.]+)$/.exec(expression);
  assert.ok(match, `unexpected condition ${expression}`);
  return match[1] === "<" ? value < Number(match[2]) : value > Number(match[2]);
}

let store: TemporaryStore;
let rules: ProvisionedRule[];

before(async () => {
  store = await temporaryStore();
  const written = await new ClickHouseHealthSink(store.connection).write(SCENARIOS.flatMap(snapshots));
  assert.ok(written.ok);
  const document = parse(await readFile(path.join(projectRoot, PIPELINE_ALERT_RULES_FILE), "utf8")) as { groups: { rules: ProvisionedRule[] }[] };
  rules = document.groups.flatMap((group) => group.rules);
});

after(async () => {
  await store.cleanup();
});

/** Which rules fire at the end of a scenario, with their values. */
async function firing(scenario: Scenario): Promise<Record<string, number>> {
  const fired: Record<string, number> = {};
  for (const rule of rules) {
    const query = rule.data.find((entry) => entry.refId === "A")!;
    const condition = rule.data.find((entry) => entry.refId === "C")!;
    const toMs = endOf(scenario);
    const context = { fromMs: toMs - query.relativeTimeRange!.from * 1000, toMs, intervalMs: 60_000 };
    const frame = await runQuery(store.store.dashboards, "A", executableSql(query.model.rawSql!, store.connection.database, {}, context));
    assert.equal(frame.rows, 1, `${rule.uid}: one row whatever the data`);
    const value = Number(frame.fields.find((field) => field.name === "Value")!.values[0]);
    if (fires(condition.model.expression!, value)) fired[rule.uid] = value;
  }
  return fired;
}

describe("the pipeline's alert rules on the ClickHouse engine", () => {
  test("seven rules, each reading collector_health with FINAL, a time-series query alerting on no data", () => {
    assert.deepEqual(rules.map((rule) => rule.uid), [
      "ragscope-pipeline-dead-letters",
      "ragscope-pipeline-dropped-spans",
      "ragscope-pipeline-receiver-refusing",
      "ragscope-pipeline-consumer-stalled",
      "ragscope-pipeline-store-parts",
      "ragscope-pipeline-log-events-without-spans",
      "ragscope-pipeline-silent",
    ]);
    for (const rule of rules) {
      const query = rule.data.find((entry) => entry.refId === "A")!;
      assert.equal(query.model.format, 0, rule.uid);
      for (const reference of tableReferences(query.model.rawSql!)) assert.ok(reference.final, `${rule.uid} reads ${reference.table} without FINAL`);
      assert.equal(rule.noDataState, "Alerting", rule.uid);
    }
  });

  test("a healthy pipeline fires nothing", async () => {
    assert.deepEqual(await firing("healthy"), {});
  });

  test("dead letters, dropped spans, a stalled consumer and a silent collector each fire their rule alone, with the figure", async () => {
    assert.deepEqual(await firing("dead letters"), { "ragscope-pipeline-dead-letters": 3 });
    assert.deepEqual(await firing("dropped spans"), { "ragscope-pipeline-dropped-spans": 7 });
    assert.deepEqual(await firing("consumer stalled"), { "ragscope-pipeline-consumer-stalled": 100 });
    assert.deepEqual(await firing("silent"), { "ragscope-pipeline-silent": 0 });
  });

  test("a receiver refusing every request (Kafka down) fires its rule, though no span was dropped; refusals now and then do not", async () => {
    // 20 snapshots of 3 refusals each in the rule's 5 minutes.
    assert.deepEqual(await firing("receiver refusing"), { "ragscope-pipeline-receiver-refusing": 60 });
    // 6 refusals among 206 requests: under a tenth.
    assert.deepEqual(await firing("refusals now and then"), {});
  });

  test("a store partition past half the engine's parts_to_delay_insert fires with its parts; one merged back down since does not", async () => {
    // The last snapshot, at the scenario's end: 40 + 100 × 10 = 1,040 parts, past 500 (half of 1,000).
    assert.deepEqual(await firing("parts piling up"), { "ragscope-pipeline-store-parts": 1040 });
    assert.deepEqual(await firing("parts piled up, merged since"), {});
  });

  test("log events whose spans never come fire their rule when they are many and most of them; a trace sampled out now and then does not", async () => {
    // 60 snapshots in the rule's 15 minutes, 3 events waiting in each: 180 of 300.
    assert.deepEqual(await firing("log events without spans"), { "ragscope-pipeline-log-events-without-spans": 180 });
    // 4 waiting among 604: neither 20 nor half.
    assert.deepEqual(await firing("log events now and then without spans"), {});
  });
});
