/**
 * Stored SQL injection, attacked as before: a stored run id and a CLI flag
 * (`report --service "x\' OR 1=1 --"`) reached the dashboards' SQL through
 * the Grafana variable format `sqlstring`, which doubles `'` but leaves `\`,
 * so ClickHouse read `\'` as an escaped quote and the value broke out of the
 * string literal. Now every variable reaches SQL percent-encoded inside
 * decodeURLComponent('…'), in the Grafana dashboards and in the static report
 * alike (dashboards/source/sql-scope.ts).
 *
 * 1. Shape: every panel query of every dashboard, rendered with each hostile
 *    string in every variable, has the same token structure as with a benign
 *    value — only the contents of string literals differ.
 * 2. End to end: `ragscope report` as a subprocess over a store holding a
 *    demo run and a run whose id an older version stored unchecked, with
 *    hostile filter flags: the numbers are what the filters select, nothing more.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { readDashboards } from "../../report/dashboard-files.js";
import { ALL, renderPanelSql, type Variables } from "../../report/grafana-macros.js";
import { openClickHouse } from "../../store/clickhouse/clickhouse-connection.js";
import { HOSTILE_STRINGS } from "../support/hostile-strings.js";
import { recordAttack, residentMemoryMb } from "../support/attack-report.js";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const ragscope = path.join(projectRoot, "bin/ragscope.js");

/**
 * The query's tokens with every string literal's contents replaced by `?`.
 * A literal ends at a `'` that is neither doubled (`''`) nor escaped (`\'`),
 * as ClickHouse reads it; a value that broke out of its literal changes this.
 */
function shape(sql: string): string {
  let result = "";
  for (let index = 0; index < sql.length; index += 1) {
    const character = sql[index];
    if (character !== "'") {
      result += character;
      continue;
    }
    index += 1;
    for (; index < sql.length; index += 1) {
      if (sql[index] === "\\") index += 1;
      else if (sql[index] === "'" && sql[index + 1] === "'") index += 1;
      else if (sql[index] === "'") break;
    }
    result += "'?'";
  }
  return result;
}

describe("SQL injection through dashboard variables and report flags", () => {
  test("every panel's SQL keeps its shape whatever a variable holds", async () => {
    const context = { fromMs: Date.UTC(2026, 0, 1), toMs: Date.UTC(2026, 0, 2), intervalMs: 60_000 };
    let checked = 0;
    for (const dashboard of await readDashboards()) {
      const names = dashboard.variables.map((variable) => variable.name);
      const assign = (value: string): Variables => Object.fromEntries(names.map((name) => [name, { value: dashboard.variables.find((variable) => variable.name === name)!.multi ? [value, "second"] : value }]));
      for (const row of dashboard.rows) {
        for (const panel of row.panels) {
          for (const target of panel.targets) {
            const benign = shape(renderPanelSql(target.rawSql, assign("benign"), context));
            for (const hostile of HOSTILE_STRINGS) {
              assert.equal(shape(renderPanelSql(target.rawSql, assign(hostile), context)), benign, `${dashboard.title} / ${panel.title}: ${JSON.stringify(hostile)}`);
              checked += 1;
            }
          }
        }
      }
    }
    assert.ok(checked > 100, `only ${checked} renderings checked`);
    recordAttack({ attack: `hostile dashboard variable values (${checked} panel renderings)`, outcome: "SQL shape unchanged (percent-encoded)" });
  });

  test("the static report refuses a variable in SQL that is not percent-encoded (sqlstring, unformatted)", () => {
    const context = { fromMs: 0, toMs: 1_000, intervalMs: 1_000 };
    assert.throws(() => renderPanelSql("SELECT 1 WHERE run_id IN (${run:sqlstring})", { run: { value: ["a"] } }, context), /other formats can break out of a ClickHouse string literal/);
    assert.throws(() => renderPanelSql("SELECT 1 WHERE run_id = $run", { run: { value: "a" } }, context), /reaches SQL only as \$\{run:percentencode\}/);
    // The frontend macro still sees the plain variable to decide "All".
    assert.equal(renderPanelSql("SELECT 1 WHERE $__conditionalAll(x, $run)", { run: { value: [ALL] } }, context), "SELECT 1 WHERE 1=1");
  });

  describe("ragscope report over a store with a hostile stored run id", () => {
    let folder: string;
    let dataDir: string;
    const HOSTILE_RUN = "\\' OR 1=1 --";
    before(async () => {
      folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-sql-injection-"));
      dataDir = path.join(folder, "data");
      const demo = spawnSync(process.execPath, [ragscope, "demo", "--data-dir", dataDir], { encoding: "utf8", cwd: folder, timeout: 300_000 });
      assert.equal(demo.status, 0, demo.stderr);
      // A run an older version stored without checking its id, newer than the demo's: the Runs dashboard's default candidate.
      const connection = await openClickHouse({ url: null, username: "default", password: "", database: "ragscope", dataPath: dataDir });
      try {
        await connection.client.command({
          query: `INSERT INTO ragscope.case_results (case_result_id, run_id, case_id, case_version, dataset_id, trace_id, service_name, tenant_id, route, execution_status, quality_status, partial_trace, output, latency_ms, started_at, payload, version)
                  SELECT 'cr_legacy', {run:String}, case_id, case_version, dataset_id, 'ffffffffffffffffffffffffffffffff', service_name, tenant_id, route, execution_status, quality_status, partial_trace, output, latency_ms, started_at + INTERVAL 1 HOUR, payload, version
                  FROM ragscope.case_results FINAL LIMIT 1`,
          query_params: { run: HOSTILE_RUN },
        });
      } finally {
        await connection.close();
      }
    });
    after(async () => rm(folder, { recursive: true, force: true }));

    function report(...flags: string[]) {
      const child = spawnSync(process.execPath, [ragscope, "report", "--data-dir", dataDir, "--out", path.join(folder, "report.html"), ...flags], { encoding: "utf8", cwd: folder, timeout: 300_000 });
      return { status: child.status, output: `${child.stdout}${child.stderr}` };
    }

    test("the Runs dashboard compares the stored hostile run id as a value: 1 candidate case, the demo's 26 as baseline", () => {
      const result = report();
      assert.equal(result.status, 0, result.output);
      assert.match(result.output, /Pass rates: Baseline cases 26 · Candidate cases 1 /);
      recordAttack({ attack: "stored run id \\' OR 1=1 -- as Runs dashboard default", outcome: "compared as a value: 1 candidate case" });
      assert.doesNotMatch(result.output, /SYNTAX_ERROR|Syntax error/i);
    });

    for (const hostile of HOSTILE_STRINGS.slice(0, 4)) {
      // A service name the collector never stores (contracts/identifiers.ts) is refused before any query is built:
      // it could match nothing, and it never reaches SQL (the stored hostile run id above shows the values that do are
      // compared as values).
      test(`--service ${JSON.stringify(hostile)} is refused before any query, rather than selecting everything`, () => {
        const result = report("--service", hostile, "--from", "2000-01-01T00:00:00Z", "--to", "2100-01-01T00:00:00Z");
        assert.equal(result.status, 2, result.output);
        assert.match(result.output, /option '--service <name>' argument .* is invalid\. It is no service name the collector stores, so no data could match it/);
        assert.doesNotMatch(result.output, /SYNTAX_ERROR|Syntax error|Requests [1-9]/i);
        recordAttack({ attack: `report --service ${JSON.stringify(hostile)}`, outcome: "refused before any query (exit 2)" });
      });
    }
  });
});
