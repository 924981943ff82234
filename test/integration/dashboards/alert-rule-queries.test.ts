/**
 * Every generated alert rule's query (deploy/grafana/provisioning/alerting/),
 * with the plugin's macros expanded as interop.md §7 gives them, runs on the
 * ClickHouse engine against the seeded dataset and returns what Grafana's
 * alerting needs from a time-series query: a time column, the service_name
 * label column and one numeric value per service.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { parse } from "yaml";
import { executableSql, runQuery } from "../../../report/panel-data.js";
import { tableReferences } from "../../../report/qualify-tables.js";
import { ALERT_RULES_FILE, projectRoot } from "../../../dashboards/source/generated-files.js";
import { temporaryStore, type TemporaryStore } from "../../support/temporary-store.js";
import { DATASET_END, DATASET_START, seedDashboardDataset, SERVICES } from "./dashboard-dataset.js";

interface RuleQuery {
  refId: string;
  datasourceUid: string;
  model: { rawSql?: string; format?: number; expression?: string; type?: string };
}

interface ProvisionedRule {
  uid: string;
  title: string;
  data: RuleQuery[];
}

let store: TemporaryStore;
let rules: ProvisionedRule[];

before(async () => {
  store = await temporaryStore();
  await seedDashboardDataset(store.connection);
  const document = parse(await readFile(path.join(projectRoot, ALERT_RULES_FILE), "utf8")) as { groups: { rules: ProvisionedRule[] }[] };
  rules = document.groups.flatMap((group) => group.rules);
});

after(async () => {
  await store.cleanup();
});

describe("alert rule queries on the ClickHouse engine", () => {
  test("the gate file yields rules", () => {
    assert.ok(rules.length >= 10, `only ${rules.length} rules`);
  });

  test("every rule's query runs and returns a time, the service and a numeric value per service", async () => {
    const context = { fromMs: DATASET_START, toMs: DATASET_END, intervalMs: 60_000 };
    for (const rule of rules) {
      const query = rule.data.find((entry) => entry.refId === "A")!;
      assert.equal(query.model.format, 0, `${rule.uid}: a time-series query`);
      for (const reference of tableReferences(query.model.rawSql!)) assert.ok(reference.final, `${rule.uid} reads ${reference.table} without FINAL`);
      // Alert rules run on the backend: no dashboard variables (interop.md §7).
      const frame = await runQuery(store.store.dashboards, "A", executableSql(query.model.rawSql!, store.connection.database, {}, context)).catch((error: Error) => assert.fail(`${rule.uid}: ${error.message}`));
      assert.ok(frame.rows > 0, `${rule.uid} returned no rows`);
      assert.deepEqual(frame.fields.map((field) => field.type), ["time", "string", "number"], `${rule.uid}: ${frame.fields.map((field) => `${field.name} ${field.clickhouseType}`).join(", ")}`);
      assert.equal(frame.fields[1]!.name, "service_name");
      const services = frame.fields[1]!.values as string[];
      assert.equal(new Set(services).size, services.length, `${rule.uid}: one row per service`);
      assert.ok(services.every((service) => SERVICES.includes(service)), `${rule.uid}: ${services.join(", ")}`);
      assert.ok(frame.fields[2]!.values.every((value) => typeof value === "number"), `${rule.uid}: a value for every service`);
    }
  });

  test("a service with fewer samples than min_samples returns no row, so the rule stays silent", async () => {
    const rule = rules.find((candidate) => candidate.uid === "ragscope-gate-p95-latency-ms")!;
    const sql = rule.data.find((entry) => entry.refId === "A")!.model.rawSql!;
    assert.match(sql, />= 50\b/);
    // Ten minutes hold ten requests: under the rule's 50 samples.
    const context = { fromMs: DATASET_START, toMs: DATASET_START + 10 * 60_000, intervalMs: 60_000 };
    const frame = await runQuery(store.store.dashboards, "A", executableSql(sql, store.connection.database, {}, context));
    assert.equal(frame.rows, 0);
  });
});
