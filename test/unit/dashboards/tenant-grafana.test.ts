/**
 * Grafana per tenant (deploy/grafana/tenants, deploy/clickhouse/
 * tenant-access.example.sql) stays in step with what the dashboards read: the
 * example policy restricts every table a panel reads except the collector's
 * own health (not granted), leaves other users every row, and the tenant
 * organisation's data source has the uid the dashboards name. The SQL itself
 * cannot run here (chDB has no access control; SECURITY.md "Tenants").
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { test } from "node:test";
import { parse } from "yaml";
import { CLICKHOUSE_DATASOURCE } from "../../../dashboards/source/datasource.js";
import { projectRoot } from "../../../dashboards/source/generated-files.js";
import { DASHBOARD_TABLES } from "../../../report/qualify-tables.js";

const sqlFile = path.join(projectRoot, "deploy/clickhouse/tenant-access.example.sql");

function statements(sql: string): string[] {
  return sql
    .split("\n")
    .filter((line) => !line.trim().startsWith("--"))
    .join("\n")
    .split(";")
    .map((statement) => statement.replace(/\s+/g, " ").trim())
    .filter(Boolean);
}

test("every table the dashboards read has a tenant row policy and a grant, except collector_health, which is not granted", async () => {
  const all = statements(await readFile(sqlFile, "utf8"));
  const policies = all.filter((statement) => statement.startsWith("CREATE ROW POLICY IF NOT EXISTS tenant_acme ON "));
  const restricted = new Set(policies.flatMap((statement) => [...statement.matchAll(/ragscope\.(\w+)/g)].map((match) => match[1]!)).filter((table) => DASHBOARD_TABLES.includes(table as never)));
  const granted = new Set(all.filter((statement) => statement.startsWith("GRANT SELECT ON ")).map((statement) => /ragscope\.(\w+)/.exec(statement)![1]!));
  const tenantTables = DASHBOARD_TABLES.filter((table) => table !== "collector_health");
  assert.deepEqual([...granted].sort(), [...tenantTables].sort());
  for (const table of tenantTables) assert.ok(restricted.has(table), `${table} has no tenant_acme policy`);
  assert.ok(policies.every((statement) => statement.endsWith("TO grafana_acme")));
  assert.match(all.find((statement) => statement.startsWith("CREATE ROW POLICY IF NOT EXISTS tenant_acme ON ragscope.case_results"))!, /USING tenant_id = 'acme'/);
  const everyoneElse = all.find((statement) => statement.startsWith("CREATE ROW POLICY IF NOT EXISTS everyone_else"));
  assert.ok(everyoneElse, "users without a policy would see no rows");
  for (const table of tenantTables) assert.ok(everyoneElse.includes(`ragscope.${table}`), `everyone_else misses ${table}`);
  assert.match(everyoneElse, /USING 1 TO ALL EXCEPT grafana_acme$/);
  assert.match(all.find((statement) => statement.startsWith("CREATE USER"))!, /SETTINGS readonly = 1$/, "row policies only hold for read-only users");
});

test("the tenant organisation's data source has the dashboards' uid and logs in as the tenant's user", async () => {
  const document = parse(await readFile(path.join(projectRoot, "deploy/grafana/tenants/acme.yaml.example"), "utf8")) as { datasources: { uid: string; orgId: number; type: string; jsonData: { username: string } }[] };
  const [source] = document.datasources;
  assert.equal(source?.uid, CLICKHOUSE_DATASOURCE.uid);
  assert.equal(source?.type, CLICKHOUSE_DATASOURCE.type);
  assert.notEqual(source?.orgId, 1, "not the operator's organisation");
  assert.equal(source?.jsonData.username, "grafana_acme");
});
