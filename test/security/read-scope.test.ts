/**
 * Every read path filters by the reader's tenants on the server side. Two
 * tenants send traces over OTLP with their own tokens (one run each, and one
 * run both write to); then a reader limited to tenant A attacks every read
 * path for B's data:
 *
 * - the web UI and its JSON API (RAGSCOPE_UI_TENANT_TOKENS): the list, the
 *   detail of B's trace by id, filters naming B (tenant, run, service, text),
 *   runs, a run comparison and summary with B's run, the review queue, label
 *   export, and labels imported or posted for B's trace;
 * - `ragscope report --tenant` and `ragscope gate --tenant` as subprocesses on
 *   the same data folder.
 *
 * No answer to A may hold B's case result ids, trace ids, run id, service,
 * answer text or counts. The operator (a plain UI token, or the CLI without
 * --tenant) sees B's data in the same places, so each check could fail.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { tokenDigestHex } from "../../collector/01-receive/bearer-authorization.js";
import { loadSettings } from "../../collector/wiring/config/load-settings.js";
import { startEmbeddedCollector, type EmbeddedCollector } from "../../collector/wiring/run/embedded-collector.js";
import { parseUiTenantTokens } from "../../ui/access/ui-access.js";
import { startUiServer, type UiServer } from "../../ui/ui-server.js";
import { recordAttack } from "../support/attack-report.js";

const projectRoot = fileURLToPath(new URL("../..", import.meta.url));
const ragscope = path.join(projectRoot, "bin/ragscope.js");

const INGEST_ACME = "ingest-token-of-acme-51c2";
const INGEST_GLOBEX = "ingest-token-of-globex-9e0d";
const ALICE = "ui-token-of-alice-at-acme-4410";
const OPERATOR = "ui-token-of-the-operator-77e1";

/** B's markers: none may appear in anything A reads. */
const GLOBEX_SECRET = "GLOBEX-SECRET-ANSWER";
const GLOBEX_TRACES = ["b0000000000000000000000000000001", "b0000000000000000000000000000002", "b0000000000000000000000000000003"];
const ACME_TRACES = ["a0000000000000000000000000000001", "a0000000000000000000000000000002"];

interface Sent {
  trace: string;
  run: string;
  service: string;
  answer: string;
  /** The online experiment and variant the request ran in. */
  experiment: [string, string];
}

const SENT_BY_ACME: Sent[] = [
  { trace: ACME_TRACES[0]!, run: "run-acme", service: "acme-bot", answer: "Acme: refunds within 14 days.", experiment: ["exp-shared", "control"] },
  { trace: ACME_TRACES[1]!, run: "run-shared", service: "acme-bot", answer: "Acme: shared run answer.", experiment: ["exp-shared", "treatment"] },
];
const SENT_BY_GLOBEX: Sent[] = [
  { trace: GLOBEX_TRACES[0]!, run: "run-globex", service: "globex-bot", answer: `${GLOBEX_SECRET} one`, experiment: ["exp-globex", "control"] },
  { trace: GLOBEX_TRACES[1]!, run: "run-shared", service: "globex-bot", answer: `${GLOBEX_SECRET} two`, experiment: ["exp-shared", "control"] },
  { trace: GLOBEX_TRACES[2]!, run: "run-shared", service: "globex-bot", answer: `${GLOBEX_SECRET} three`, experiment: ["exp-shared", "treatment"] },
];

function otlp(sent: Sent): string {
  const text = (value: string) => ({ stringValue: value });
  const attributes = [
    { key: "openinference.span.kind", value: text("CHAIN") },
    { key: "ragscope.stage", value: text("request") },
    { key: "ragscope.run_id", value: text(sent.run) },
    { key: "ragscope.query", value: text("what is the refund window?") },
    { key: "ragscope.answer", value: text(sent.answer) },
    { key: "ragscope.experiment.id", value: text(sent.experiment[0]) },
    { key: "ragscope.experiment.variant", value: text(sent.experiment[1]) },
  ];
  return JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: [{ key: "service.name", value: text(sent.service) }] },
        scopeSpans: [{ spans: [{ traceId: sent.trace, spanId: `${sent.trace.slice(0, 15)}1`, name: "rag.request", kind: 1, startTimeUnixNano: "1700000000000000000", endTimeUnixNano: "1700000000100000000", attributes }] }],
      },
    ],
  });
}

describe("a reader limited to tenant A never sees tenant B's data", () => {
  let folder: string;
  let dataDir: string;
  let collector: EmbeddedCollector | null = null;
  let ui: UiServer | null = null;
  /** B's case result ids, read as the operator. */
  let globexCaseResults: string[] = [];
  let acmeCaseResults: string[] = [];
  /** Everything A was answered, checked for B's markers after each attack. */
  const readByAcme: { address: string; body: string }[] = [];

  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-read-scope-"));
    dataDir = path.join(folder, "data");
    const settings = loadSettings({
      environment: { RAGSCOPE_TENANT_TOKENS: `acme=${tokenDigestHex(INGEST_ACME)},globex=${tokenDigestHex(INGEST_GLOBEX)}` },
      fixed: { "receiver.port": 0, "assembler.quietPeriodMs": 100, "clickhouse.dataPath": dataDir },
    });
    assert.ok(settings.ok, settings.ok ? "" : settings.error.join("\n"));
    collector = await startEmbeddedCollector(settings.value);
    for (const [token, traces] of [[INGEST_ACME, SENT_BY_ACME], [INGEST_GLOBEX, SENT_BY_GLOBEX]] as const) {
      for (const sent of traces) {
        const answer = await fetch(`${collector.receiverUrl}/v1/traces`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${token}` }, body: otlp(sent) });
        assert.equal(answer.status, 200, await answer.text());
      }
    }
    // Each tenant's run recorded as its own; the run both tenants' requests name, without a tenant (the operator's).
    for (const [run, tenant] of [["run-acme", "acme"], ["run-globex", "globex"], ["run-shared", ""]] as const) await collector.store.runs.record({ run_id: run, started_at: "2023-11-14T22:13:20.000Z" }, tenant);
    assert.ok(await collector.waitUntilIdle(30_000));
    // A run A reads no lineage of is listed from the request rollups, which follow the writes within the rollup refresh.
    await collector.store.rollups.refresh();
    const tenantTokens = parseUiTenantTokens(`alice:acme=${tokenDigestHex(ALICE)}`);
    assert.ok(tenantTokens.ok);
    ui = await startUiServer({ host: "127.0.0.1", port: 0, store: collector.store, access: { tokens: new Map([[OPERATOR, "operator"]]), tenantTokens: tenantTokens.value } });
    const everything = (await (await get(OPERATOR, "/api/traces?limit=200")).json()) as { traces: { caseResultId: string; tenantId: string }[] };
    globexCaseResults = everything.traces.filter((trace) => trace.tenantId === "globex").map((trace) => trace.caseResultId);
    acmeCaseResults = everything.traces.filter((trace) => trace.tenantId === "acme").map((trace) => trace.caseResultId);
    assert.equal(globexCaseResults.length, 3, "the operator reads B's three traces");
    assert.equal(acmeCaseResults.length, 2);
    // A label by the operator on B's trace: A must not see it in exports or agreement.
    const imported = await fetch(`${ui.url}/api/labels.jsonl`, { method: "POST", headers: { authorization: `Bearer ${OPERATOR}`, "content-type": "application/x-ndjson" }, body: `${JSON.stringify({ case_result_id: globexCaseResults[0], metric: "faithfulness", labeler_id: "operator", verdict: "fail", labeled_at: "2026-01-01T00:00:00.000Z" })}\n` });
    assert.equal(imported.status, 200, await imported.text());
  });

  after(async () => {
    await ui?.close();
    await collector?.close();
    await rm(folder, { recursive: true, force: true });
  });

  function get(token: string, address: string, init: RequestInit = {}) {
    return fetch(`${ui!.url}${address}`, { ...init, headers: { authorization: `Bearer ${token}`, ...(init.headers ?? {}) } });
  }

  /** As A: the status and the body, remembered for the leak check. */
  async function asAcme(address: string, init: RequestInit = {}): Promise<{ status: number; body: string }> {
    const answer = await get(ALICE, address, init);
    const body = await answer.text();
    readByAcme.push({ address, body });
    return { status: answer.status, body };
  }

  /** `asked`: what the reader sent itself (an error may quote the id it asked for; that tells it nothing). */
  function assertNothingOfGlobex(text: string, where: string, asked = "") {
    for (const marker of [GLOBEX_SECRET, "globex", "run-globex", ...GLOBEX_TRACES, ...globexCaseResults]) if (!asked.includes(marker)) assert.ok(!text.includes(marker), `${where} holds "${marker}" of tenant B`);
  }

  test("the trace list holds A's traces only, with A's count", async () => {
    const { status, body } = await asAcme("/api/traces?limit=200");
    assert.equal(status, 200);
    const traces = (JSON.parse(body) as { traces: { caseResultId: string; tenantId: string }[] }).traces;
    assert.deepEqual(traces.map((trace) => trace.caseResultId).sort(), [...acmeCaseResults].sort());
    assert.equal((await asAcme("/traces")).status, 200);
    assert.equal((await asAcme("/traces/rows")).status, 200);
  });

  test("filters naming B find nothing: tenant, run, service, text, dataset", async () => {
    for (const query of ["tenant=globex", "run=run-globex", "service=globex-bot", `q=${GLOBEX_SECRET}`, "run=run-shared&tenant=globex"]) {
      const { status, body } = await asAcme(`/api/traces?${query}`);
      assert.equal(status, 200, query);
      assert.deepEqual((JSON.parse(body) as { traces: unknown[] }).traces, [], query);
    }
    const shared = JSON.parse((await asAcme("/api/traces?run=run-shared")).body) as { traces: unknown[] };
    assert.equal(shared.traces.length, 1, "of the shared run, A's one trace");
    recordAttack({ attack: "UI reader of tenant A: list and filters naming B (tenant, run, service, text)", outcome: "A's traces only; B's filters empty" });
  });

  test("B's trace by id is not found: detail page, API, review page, labelling", async () => {
    for (const id of globexCaseResults) {
      assert.equal((await asAcme(`/api/traces/${id}`)).status, 404);
      assert.equal((await asAcme(`/traces/${id}`)).status, 404);
      assert.equal((await asAcme(`/review/${id}`)).status, 404);
      const posted = await asAcme(`/review/${id}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ verdicts: { faithfulness: "pass" } }) });
      assert.equal(posted.status, 404);
    }
    recordAttack({ attack: "UI reader of tenant A: B's trace by case result id (detail, review, label)", outcome: "404, as if not stored" });
  });

  test("runs: B's run is not listed, compares and summarises as not stored; the shared run counts A's cases only", async () => {
    const runs = JSON.parse((await asAcme("/api/runs")).body) as { runs: { runId: string; lineage: unknown }[] };
    assert.deepEqual(runs.runs.map((run) => run.runId).sort(), ["run-acme", "run-shared"]);
    assert.equal(runs.runs.find((run) => run.runId === "run-shared")?.lineage, null, "the shared run's lineage has no tenant: the operator's alone");
    assert.equal((await asAcme("/runs")).status, 200);
    assert.equal((await asAcme("/api/runs/compare?candidate=run-acme&baseline=run-globex")).status, 404);
    assert.equal((await asAcme("/runs/compare?candidate=run-globex&baseline=run-acme")).status, 404);
    assert.equal((await asAcme("/api/runs/run-globex/summary")).status, 404);
    const shared = await asAcme("/api/runs/run-shared/summary");
    assert.equal(shared.status, 200);
    assert.equal((JSON.parse(shared.body) as { cases: number }).cases, 1, "A's one case of the shared run, not B's two");
    const compared = await asAcme("/api/runs/compare?candidate=run-shared&baseline=run-acme");
    assert.equal(compared.status, 200);
    assert.equal((JSON.parse(compared.body) as { candidate: { cases: number } }).candidate.cases, 1);
    // The operator sees B's run and all three cases of the shared run: the same requests could leak.
    assert.equal(((await (await get(OPERATOR, "/api/runs/run-shared/summary")).json()) as { cases: number }).cases, 3);
    assert.equal((await get(OPERATOR, "/api/runs/run-globex/summary")).status, 200);
    recordAttack({ attack: "UI reader of tenant A: runs list, comparison and summary with B's run", outcome: "B's run 404; shared run counts A's case only" });
  });

  test("labels: B's labels are not exported or counted; labels for B's trace are refused", async () => {
    const exported = await asAcme("/api/labels.jsonl");
    assert.equal(exported.status, 200);
    assert.equal(exported.body, "");
    assert.equal((await asAcme("/api/review")).status, 200);
    assert.equal((await asAcme("/review")).status, 200);
    const forged = await asAcme("/api/labels.jsonl", { method: "POST", headers: { "content-type": "application/x-ndjson" }, body: `${JSON.stringify({ case_result_id: globexCaseResults[1], metric: "faithfulness", labeler_id: "alice", verdict: "pass", labeled_at: "2026-01-02T00:00:00.000Z" })}\n` });
    assert.equal(forged.status, 400);
    assert.match(forged.body, /not stored or not readable with this token; nothing was saved/);
    const operatorLabels = await (await get(OPERATOR, "/api/labels.jsonl")).text();
    assert.equal(operatorLabels.trim().split("\n").length, 1, "only the operator's own label on B's trace");
    recordAttack({ attack: "UI reader of tenant A: label export, and labels imported for B's trace", outcome: "nothing of B exported; import refused (400)" });

    // A's reviewer imports a label on A's own trace in another reviewer's name: the identity is the token's, so the file is refused.
    const impersonated = await asAcme("/api/labels.jsonl", { method: "POST", headers: { "content-type": "application/x-ndjson" }, body: `${JSON.stringify({ case_result_id: acmeCaseResults[0], metric: "faithfulness", labeler_id: "second-reviewer", verdict: "pass", labeled_at: "2026-01-02T00:00:00.000Z" })}\n` });
    assert.equal(impersonated.status, 400);
    assert.match((JSON.parse(impersonated.body) as { error: string }).error, /^line 1: labeler_id "second-reviewer" is not you \("alice"\)/);
    assert.doesNotMatch((await asAcme("/api/labels.jsonl")).body, /second-reviewer/);
    recordAttack({ attack: "UI reader of tenant A: label import naming another reviewer", outcome: "refused (400), nothing saved" });
  });

  test("nothing A was answered holds anything of B", () => {
    assert.ok(readByAcme.length > 20);
    for (const answer of readByAcme) assertNothingOfGlobex(answer.body, answer.address, answer.address);
  });

  describe("the CLI with --tenant on the same data folder", () => {
    before(async () => {
      await ui?.close();
      ui = null;
      await collector?.close();
      collector = null;
    });

    function run(...args: string[]) {
      const child = spawnSync(process.execPath, [ragscope, ...args, "--data-dir", dataDir], { encoding: "utf8", cwd: folder, timeout: 300_000, env: { ...process.env, RAGSCOPE_CLICKHOUSE_URL: "" } });
      return { status: child.status, output: `${child.stdout}${child.stderr}` };
    }

    test("ragscope report --tenant acme holds nothing of B; without --tenant it does", async () => {
      const scoped = run("report", "--tenant", "acme", "--out", path.join(folder, "acme.html"));
      assert.equal(scoped.status, 0, scoped.output);
      const html = await readFile(path.join(folder, "acme.html"), "utf8");
      assertNothingOfGlobex(`${scoped.output}\n${html}`, "report --tenant acme");
      assert.match(scoped.output, /Requests 2 /, scoped.output);
      // Grafana's tenant variable alone filtered the panels, not the run lists or the comparison: the scope does.
      const everything = run("report", "--out", path.join(folder, "all.html"));
      assert.equal(everything.status, 0, everything.output);
      assert.match(everything.output, /Requests 5 /);
      assert.ok((await readFile(path.join(folder, "all.html"), "utf8")).includes("globex"), "the operator's report shows tenant B");
      recordAttack({ attack: "ragscope report --tenant acme over a store with tenant B", outcome: "no run id, trace, answer or count of B" });
    });

    test("ragscope gate --tenant acme: B's run is not stored; the shared run has A's case only", () => {
      const globex = run("gate", "--run", "run-globex", "--tenant", "acme");
      assert.equal(globex.status, 2, globex.output);
      assert.match(globex.output, /run "run-globex" has no stored results of tenant "acme"/);
      const shared = run("gate", "--run", "run-shared", "--tenant", "acme");
      assert.match(shared.output, /Release gate for run run-shared \(1 cases\)/, shared.output);
      assertNothingOfGlobex(shared.output, "gate --tenant acme");
      // The operator's gate does not decide on both tenants' results of one run id unless asked (test/security/mixed-tenant-run.test.ts).
      const unscoped = run("gate", "--run", "run-shared");
      assert.equal(unscoped.status, 2, unscoped.output);
      assert.match(unscoped.output, /run "run-shared" holds the results of 2 tenants \(tenant "globex" 2 results, tenant "acme" 1 result\)/);
      assert.match(run("gate", "--run", "run-shared", "--all-tenants").output, /Release gate for run run-shared \(3 cases\)/);
      recordAttack({ attack: "ragscope gate --tenant acme on B's run and a shared run", outcome: "B's run not stored (exit 2); shared run: A's 1 case" });
    });

    test("ragscope experiment report --tenant acme: B's experiment is not stored; a shared experiment counts A's requests only", () => {
      const globex = run("experiment", "report", "--id", "exp-globex", "--tenant", "acme");
      assert.equal(globex.status, 2, globex.output);
      assert.match(globex.output, /no request of experiment "exp-globex" is stored in .*tenant "acme" only; stored experiments: exp-shared$/m);
      const shared = run("experiment", "report", "--id", "exp-shared", "--tenant", "acme", "--json");
      assert.equal(shared.status, 0, shared.output);
      const traffic = (JSON.parse(shared.output.slice(shared.output.indexOf("{"))) as { traffic: { variant: string; requests: number }[] }).traffic;
      assert.deepEqual(traffic.map((variant) => [variant.variant, variant.requests]), [["control", 1], ["treatment", 1]]);
      assertNothingOfGlobex(shared.output, "experiment report --tenant acme");
      const all = run("experiment", "report", "--id", "exp-shared", "--json");
      assert.equal(all.status, 0, all.output);
      const everything = JSON.parse(all.output.slice(all.output.indexOf("{"))) as { traffic: { variant: string; requests: number }[] };
      assert.deepEqual(everything.traffic.map((variant) => [variant.variant, variant.requests]), [["control", 2], ["treatment", 2]]);
      recordAttack({ attack: "ragscope experiment report --tenant acme on B's experiment and a shared one", outcome: "B's experiment not stored (exit 2); shared: A's 2 requests" });
    });
  });
});
