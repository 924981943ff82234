/**
 * The committed dashboards and alert rules: generated from dashboards/source
 * and not stale, valid for Grafana's dashboard model (the Foundation SDK's
 * types), stable uids and panel ids, and only the provisioned data source.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { parse } from "yaml";
import { ALERT_RULES_FILE, DASHBOARD_FILES, numberPanels, projectRoot, renderGeneratedFiles } from "../../../dashboards/source/generated-files.js";
import { typeCheckDashboards } from "./dashboard-type-check.js";

async function committed(file: string): Promise<string> {
  return readFile(path.join(projectRoot, file), "utf8");
}

async function dashboards(): Promise<Record<string, Record<string, unknown>>> {
  const documents: Record<string, Record<string, unknown>> = {};
  for (const file of Object.keys(DASHBOARD_FILES)) documents[file] = JSON.parse(await committed(file)) as Record<string, unknown>;
  return documents;
}

/** Every `datasource` reference anywhere in a document, and every alert query's datasourceUid. */
function datasourceUids(node: unknown, found: string[] = []): string[] {
  if (Array.isArray(node)) for (const item of node) datasourceUids(item, found);
  else if (node !== null && typeof node === "object") {
    for (const [key, value] of Object.entries(node)) {
      if (key === "datasource" && value !== null && typeof value === "object" && "uid" in value) found.push(String((value as { uid: unknown }).uid));
      else if (key === "datasourceUid") found.push(String(value));
      else datasourceUids(value, found);
    }
  }
  return found;
}

describe("generated dashboards and alert rules", () => {
  test("the committed files are what the sources generate (run `npm run dashboards` when this fails)", async () => {
    const rendered = await renderGeneratedFiles();
    assert.ok(rendered.ok, rendered.ok ? "" : rendered.error);
    for (const [file, text] of rendered.value) assert.equal(await committed(file), text, `${file} is stale: run npm run dashboards`);
  });

  test("the dashboards conform to Grafana's dashboard model (Grafana Foundation SDK types)", async () => {
    const problems = typeCheckDashboards(await dashboards());
    assert.deepEqual(problems, []);
  });

  test("the model check rejects unknown fields, wrong types and unknown enum values", async () => {
    const original = (await dashboards())["dashboards/failures.json"]!;
    type Mutable = { panels: Record<string, unknown>[]; templating: { list: Record<string, unknown>[] } } & Record<string, unknown>;
    const mutations: [string, (document: Mutable) => void, RegExp][] = [
      ["an unknown dashboard field", (document) => (document.refreshEvery = "1m"), /'"?refreshEvery"?' does not exist/],
      ["a wrong type", (document) => (document.panels[1]!.gridPos = { x: 0, y: 1, w: "half", h: 8 }), /'string' is not assignable to type 'number'/],
      ["an unknown legend mode", (document) => ((document.panels[1]!.options as Record<string, unknown>).legend = { displayMode: "sideways", placement: "bottom", showLegend: true, calcs: [] }), /"sideways"/],
      ["an unknown variable type", (document) => (document.templating.list[0]!.type = "dropdown"), /"dropdown"/],
      ["a misspelled target field", (document) => ((document.panels[1]!.targets as Record<string, unknown>[])[0]!.rawSQL = "SELECT 1"), /'"?rawSQL"?' does not exist/],
    ];
    for (const [what, mutate, expected] of mutations) {
      const broken = structuredClone(original) as Mutable;
      mutate(broken);
      const messages = typeCheckDashboards({ broken }).map((problem) => problem.message).join("\n");
      assert.match(messages, expected, what);
    }
  });

  test("uids are the fixed, stable ones and panel ids are unique whole numbers", async () => {
    const documents = await dashboards();
    const uids = Object.values(documents).map((document) => document.uid);
    assert.deepEqual(uids, ["ragscope-rag-quality", "ragscope-failures", "ragscope-runs", "ragscope-collector-health"]);
    for (const [file, document] of Object.entries(documents)) {
      const ids = (document.panels as { id: number }[]).map((panel) => panel.id);
      assert.ok(ids.every((id) => Number.isInteger(id) && id > 0), `${file} panel ids ${ids.join(", ")}`);
      assert.equal(new Set(ids).size, ids.length, `${file} panel ids ${ids.join(", ")}`);
    }
  });

  test("a panel keeps its committed id when a panel is inserted before it; the new one takes the next free id", () => {
    const committedPanels = [
      { id: 1, type: "row", title: "Root causes" },
      { id: 2, type: "table", title: "Root causes" },
      { id: 3, type: "table", title: "Failing cases" },
      { id: 7, type: "table", title: "Failing cases" },
    ];
    const regenerated = {
      panels: [
        { type: "row", title: "Root causes" },
        { type: "timeseries", title: "Inserted" },
        { type: "table", title: "Root causes" },
        { type: "table", title: "Failing cases" },
        { type: "table", title: "Failing cases" },
        { type: "stat", title: "Also new" },
      ] as { id?: number; type: string; title: string }[],
    };
    numberPanels(regenerated, { panels: committedPanels });
    assert.deepEqual(regenerated.panels.map((panel) => panel.id), [1, 8, 2, 3, 7, 9]);
    const fresh = { panels: [{ type: "row", title: "A" }, { type: "stat", title: "B" }] as { id?: number; type: string; title: string }[] };
    numberPanels(fresh, null);
    assert.deepEqual(fresh.panels.map((panel) => panel.id), [1, 2]);
  });

  test("the Collector health board's panels keep the ids they had before 'Log events per second' was added", async () => {
    const document = (await dashboards())["dashboards/collector-health.json"]!;
    const idOf = new Map((document.panels as { id: number; title: string }[]).map((panel) => [panel.title, panel.id]));
    assert.equal(idOf.get("Traces without a RAG request per second"), 8);
    assert.equal(idOf.get("Backlog and sink"), 9);
    assert.equal(idOf.get("Fullest partition's active parts"), 17);
    assert.equal(idOf.get("Log events per second"), 18);
  });

  test("every data source they use is the provisioned one", async () => {
    const provisioning = parse(await committed("deploy/grafana/provisioning/datasources/clickhouse.yaml")) as { datasources: { uid: string; type: string }[] };
    assert.equal(provisioning.datasources.length, 1);
    const [provisioned] = provisioning.datasources;
    assert.equal(provisioned!.type, "grafana-clickhouse-datasource");
    for (const [file, document] of Object.entries(await dashboards())) {
      const uids = datasourceUids(document);
      assert.ok(uids.length > 0, `${file} uses no data source`);
      assert.deepEqual([...new Set(uids)], [provisioned!.uid], file);
    }
    const rules = parse(await committed(ALERT_RULES_FILE));
    assert.deepEqual([...new Set(datasourceUids(rules))].sort(), ["__expr__", provisioned!.uid].sort());
  });

  test("the dashboard provider loads the folder the compose file mounts the dashboards into", async () => {
    const provider = parse(await committed("deploy/grafana/provisioning/dashboards/ragscope.yaml")) as { providers: { type: string; options: { path: string } }[] };
    const compose = parse(await committed("deploy/docker-compose.yaml"), { merge: true }) as { services: { grafana: { volumes: string[] } } };
    const mount = compose.services.grafana.volumes.find((volume) => volume.startsWith("../dashboards:"));
    assert.ok(mount, "compose mounts dashboards/");
    assert.equal(mount.split(":")[1], provider.providers[0]!.options.path);
  });
});
