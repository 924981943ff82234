/**
 * Every panel's SQL, with the plugin's macros expanded as interop.md §7 gives
 * them, runs on the ClickHouse engine against a seeded dataset and returns
 * the shape its panel kind needs; duplicate rows (at-least-once delivery)
 * change no panel's result.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readDashboards, type ReportDashboard, type ReportPanel } from "../../../report/dashboard-files.js";
import type { Variables } from "../../../report/grafana-macros.js";
import { panelIntervalMs } from "../../../report/panel-interval.js";
import { executableSql, runQuery, type Frame } from "../../../report/panel-data.js";
import { tableReferences } from "../../../report/qualify-tables.js";
import { behaviourMetrics, defaultBehaviourWindows, summarize, toBehaviourRequest } from "../../../evaluators/behaviour/index.js";
import { temporaryStore, type TemporaryStore } from "../../support/temporary-store.js";
import { allDatasetVariables, BASELINE_RUN, CANDIDATE_RUN, DATASET_END, DATASET_ID, DATASET_START, insertDuplicateRows, seedDashboardDataset, SERVICES, TENANTS, type SeededDataset } from "./dashboard-dataset.js";

let store: TemporaryStore;
let dataset: SeededDataset;
let dashboards: ReportDashboard[];

const context = { fromMs: DATASET_START, toMs: DATASET_END, intervalMs: panelIntervalMs(DATASET_START, DATASET_END, 60) };

const allVariables = (): Variables => allDatasetVariables(dataset.failingTraceId);

async function runPanel(panel: ReportPanel, variables: Variables): Promise<Frame[]> {
  const frames: Frame[] = [];
  for (const target of panel.targets) frames.push(await runQuery(store.store.dashboards, target.refId, executableSql(target.rawSql, store.connection.database, variables, context)));
  return frames;
}

function panels(): { dashboard: ReportDashboard; panel: ReportPanel }[] {
  return dashboards.flatMap((dashboard) => dashboard.rows.flatMap((row) => row.panels.map((panel) => ({ dashboard, panel }))));
}

function assertShape(panel: ReportPanel, frames: Frame[]): void {
  const where = `panel "${panel.title}"`;
  assert.ok(frames.length > 0, `${where} has no query`);
  for (const frame of frames) {
    assert.ok(frame.rows > 0, `${where} query ${frame.refId} returned no rows`);
    const numbers = frame.fields.filter((field) => field.type === "number");
    if (panel.kind !== "table") assert.ok(numbers.length > 0, `${where} query ${frame.refId} has no numeric column`);
    switch (panel.kind) {
      case "timeseries": {
        const [time, ...rest] = frame.fields;
        assert.equal(time?.name, "time", `${where}: the first column must be named time`);
        assert.equal(time?.type, "time", `${where}: the time column must be a date-time (${time?.clickhouseType})`);
        assert.ok(time!.values.every((value) => typeof value === "number" && value >= context.fromMs - 86_400_000 && value <= context.toMs), `${where}: times outside the range`);
        assert.ok(rest.every((field) => field.type !== "time"), `${where}: one time column only`);
        assert.ok(numbers.some((field) => field.values.some((value) => value !== null)), `${where}: every series is empty`);
        break;
      }
      case "stat":
        assert.equal(frame.rows, 1, `${where}: a stat query returns one row`);
        assert.ok(frame.fields.every((field) => field.type === "number"), `${where}: a stat query returns numbers only (${frame.fields.map((field) => `${field.name}: ${field.clickhouseType}`).join(", ")})`);
        assert.ok(frame.fields.some((field) => field.values[0] !== null), `${where}: every value is empty`);
        break;
      case "barchart":
        assert.ok(panel.xField !== null, `${where}: a bar chart names its x field`);
        assert.equal(frame.fields.find((field) => field.name === panel.xField)?.type, "string", `${where}: the x field ${panel.xField} must be a string column`);
        break;
      case "table":
        break;
    }
  }
}

before(async () => {
  store = await temporaryStore();
  dataset = await seedDashboardDataset(store.connection);
  dashboards = await readDashboards();
});

after(async () => {
  await store.cleanup();
});

describe("dashboard panel queries on the ClickHouse engine", () => {
  test("there are panels of every kind the report draws", () => {
    const kinds = new Set(panels().map(({ panel }) => panel.kind));
    assert.deepEqual([...kinds].sort(), ["barchart", "stat", "table", "timeseries"]);
  });

  test("every panel's query runs with all variables on All and returns its panel's shape", async () => {
    for (const { dashboard, panel } of panels()) {
      const frames = await runPanel(panel, allVariables()).catch((error: Error) => assert.fail(`${dashboard.uid} panel "${panel.title}": ${error.message}`));
      assertShape(panel, frames);
    }
  });

  test("the business row's user-behaviour panels count what evaluators/behaviour/ counts", async () => {
    const quality = dashboards.find((dashboard) => dashboard.uid === "ragscope-rag-quality")!;
    const panelValues = new Map<string, number | null>();
    for (const title of ["User behaviour over the range", "User satisfaction"]) {
      const panel = quality.rows.flatMap((row) => row.panels).find((candidate) => candidate.title === title)!;
      for (const frame of await runPanel(panel, allVariables())) for (const field of frame.fields) panelValues.set(field.name, field.values[0] as number | null);
    }
    const requests = dataset.evaluations.map((item) => toBehaviourRequest(item.caseResult));
    const labels: Record<string, string> = {
      like_rate: "Like rate",
      dislike_rate: "Dislike rate",
      copy_rate: "Copy rate",
      citation_click_rate: "Citation clicks",
      handoff_rate: "Handoff rate",
      session_resolution_rate: "Sessions resolved",
      first_contact_resolution: "First-contact resolution",
      satisfaction: "Satisfaction",
    };
    for (const [metric, label] of Object.entries(labels)) {
      const definition = behaviourMetrics.find((candidate) => candidate.id === metric)!;
      const expected = summarize(metric, definition.observe({ requests, windows: defaultBehaviourWindows, now: DATASET_END })).value;
      assert.ok(expected !== null && expected > 0, `${metric}: the dataset exercises it`);
      const actual = panelValues.get(label);
      assert.ok(actual !== undefined && actual !== null && Math.abs(actual - expected) < 1e-9, `${metric}: panel ${actual} vs evaluator ${expected}`);
    }
  });

  test("the filter variables narrow the data when a value is selected", async () => {
    const narrowed: Variables = { ...allVariables(), service: { value: [SERVICES[1]!] }, tenant: { value: [TENANTS[1]!] } };
    const quality = dashboards.find((dashboard) => dashboard.uid === "ragscope-rag-quality")!;
    const traffic = quality.rows.flatMap((row) => row.panels).find((panel) => panel.title === "Traffic, reliability, latency and cost")!;
    const [all] = await runPanel(traffic, allVariables());
    const [some] = await runPanel(traffic, narrowed);
    const requests = (frame: Frame | undefined) => frame!.fields.find((field) => field.name === "Requests")!.values[0] as number;
    const online = dataset.evaluations.filter((item) => item.caseResult.rag_observation.service_name === SERVICES[1] && item.caseResult.rag_observation.tenant_id === TENANTS[1]).length;
    assert.equal(requests(all), dataset.evaluations.length);
    assert.equal(requests(some), online);
  });

  test("the runs board shows no online row for a run not chosen", async () => {
    const runs = dashboards.find((dashboard) => dashboard.uid === "ragscope-runs")!;
    const panel = (title: string) => runs.rows.flatMap((row) => row.panels).find((candidate) => candidate.title === title)!;
    const cell = (frame: Frame, name: string) => frame.fields.find((field) => field.name === name)!.values[0];
    assert.ok(dataset.evaluations.some((item) => item.caseResult.run_id === ""), "the dataset has online requests (run_id '')");
    const none: Variables = { ...allVariables(), baseline: { value: "" }, candidate: { value: "" } };
    const [passRates] = await runPanel(panel("Pass rates"), none);
    assert.equal(cell(passRates!, "Baseline cases"), 0);
    assert.equal(cell(passRates!, "Candidate cases"), 0);
    for (const title of ["Metrics side by side", "Scores, baseline vs candidate", "Cases that flipped", "Lineage"]) {
      const frames = await runPanel(panel(title), none);
      assert.equal(frames[0]!.rows, 0, title);
    }
    // One run chosen: its side as with two, the other side empty rather than the online traffic.
    const one: Variables = { ...allVariables(), candidate: { value: "" } };
    const [onlyBaseline] = await runPanel(panel("Pass rates"), one);
    assert.equal(cell(onlyBaseline!, "Baseline cases"), dataset.evaluations.filter((item) => item.caseResult.run_id === BASELINE_RUN).length);
    assert.equal(cell(onlyBaseline!, "Candidate cases"), 0);
    const [metrics] = await runPanel(panel("Metrics side by side"), one);
    assert.ok(metrics!.rows > 0);
    assert.ok((metrics!.fields.find((field) => field.name === "candidate_cases")!.values as number[]).every((count) => count === 0));
  });

  test("every table a query reads is collapsed with FINAL", () => {
    for (const { panel } of panels()) {
      for (const target of panel.targets) {
        const references = tableReferences(target.rawSql);
        assert.ok(references.length > 0, `panel "${panel.title}" reads no ragscope table`);
        for (const reference of references) assert.ok(reference.final, `panel "${panel.title}" reads ${reference.table} without FINAL`);
      }
    }
    for (const dashboard of dashboards) {
      for (const variable of dashboard.variables.filter((entry) => entry.type === "query")) {
        for (const reference of tableReferences(variable.query!)) assert.ok(reference.final, `variable ${variable.name} reads ${reference.table} without FINAL`);
      }
    }
  });

  test("variable queries list the seeded values", async () => {
    const expected: Record<string, string[]> = { service: [...SERVICES].sort(), tenant: [...TENANTS].sort(), dataset: [DATASET_ID], run: [BASELINE_RUN, CANDIDATE_RUN].sort(), baseline: [BASELINE_RUN, CANDIDATE_RUN].sort(), candidate: [BASELINE_RUN, CANDIDATE_RUN].sort() };
    for (const dashboard of dashboards) {
      for (const variable of dashboard.variables.filter((entry) => entry.type === "query")) {
        const frame = await runQuery(store.store.dashboards, variable.name, executableSql(variable.query!, store.connection.database, {}, context));
        assert.deepEqual((frame.fields[0]!.values as string[]).slice().sort(), expected[variable.name], `variable ${variable.name} of ${dashboard.uid}`);
      }
    }
    const runs = dashboards.find((dashboard) => dashboard.uid === "ragscope-runs")!;
    const first = async (name: string) => (await runQuery(store.store.dashboards, name, executableSql(runs.variables.find((variable) => variable.name === name)!.query!, store.connection.database, {}, context))).fields[0]!.values[0];
    assert.equal(await first("candidate"), CANDIDATE_RUN, "the candidate list starts with the latest run");
    assert.equal(await first("baseline"), BASELINE_RUN, "the baseline list starts with the run before it");
  });

  test("duplicate rows from a replay change no panel's result", async () => {
    const before = new Map<string, Frame[]>();
    for (const { dashboard, panel } of panels()) before.set(`${dashboard.uid}/${panel.id}`, await runPanel(panel, allVariables()));
    await insertDuplicateRows(store.connection, dataset);
    const [raw] = await (await store.connection.client.query({ query: `SELECT count() AS rows FROM ${store.connection.database}.metric_values`, format: "JSONEachRow" })).json<{ rows: string }>();
    const [distinct] = await (await store.connection.client.query({ query: `SELECT count() AS rows FROM ${store.connection.database}.metric_values FINAL`, format: "JSONEachRow" })).json<{ rows: string }>();
    assert.equal(Number(raw!.rows), 2 * Number(distinct!.rows), "the duplicates are on disk");
    for (const { dashboard, panel } of panels()) {
      const after = await runPanel(panel, allVariables());
      assert.deepEqual(after, before.get(`${dashboard.uid}/${panel.id}`), `panel "${panel.title}" of ${dashboard.uid} changed with duplicate rows`);
    }
  });
});
