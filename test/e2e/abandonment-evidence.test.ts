/**
 * The abandonment rate is a per-session rate like sessions resolved and first-contact resolution: it counts sessions
 * with an id only (a request without rag_observation.session_id is in no session), and reads "no data" — not a rate —
 * over a range where no session carries a user event. As users meet it: the behaviour table of `ragscope report`
 * (bin/ragscope.js as a subprocess, the HTML file read back) and the UI's read API /api/quality of `ragscope serve`
 * (real HTTP), which agree. It has no Grafana panel (evaluators/behaviour/README.md says why).
 *
 * The store, written through the store's own write port, one service, no run (online traffic), times in whole
 * minutes from T0, two days back (every 30-minute abandonment window long passed when the report runs); each
 * request's answer ends 2 s after it starts, and an event comes 30 s after the start:
 *   quiet range [T0, T0 + 10 min):
 *     session q1: one request (T0), no event;
 *     no session id: one request (T0+2) with a thumbs_up — an event, but on no session;
 *     no session id: one request (T0+3), no event.
 *   event range [T0 + 60 min, T0 + 70 min):
 *     session s1: one request (T0+60) with a thumbs_up 28 s after its answer: answered, not abandoned;
 *     session s2: one request (T0+61), no event: silent for two days, abandoned;
 *     session s3: two requests (T0+62, T0+63), the second resolved: not abandoned;
 *     no session id: two requests (T0+64, T0+65), no event.
 * Worked by hand (abandoned sessions / decided sessions):
 *   quiet range: one session (q1) and no session carries a user event → no data. (Before: a user event somewhere
 *     was enough, and each request without a session id was a session of its own: q1 and the T0+3 request silent,
 *     the T0+2 one answered → 2/3.)
 *   event range: sessions s1, s2, s3, all decided; abandoned s2 → 1/3. (Before: the two requests without a session
 *     id were two more silent sessions → 3/5.)
 */
import assert from "node:assert/strict";
import { spawnSync, type ChildProcess } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { startServeWithUi, type ServeWithUi } from "../support/serve-with-ui.js";
import { plannedCaseResult, writeToFolder, type PlannedRequest } from "../support/stored-requests.js";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const ragscope = path.join(projectRoot, "bin/ragscope.js");
const TOKEN = "abandonment-token-0123456789abcdef";
const MINUTE = 60_000;
const T0 = Math.floor((Date.now() - 2 * 86_400_000) / (60 * MINUTE)) * 60 * MINUTE;

const PLANNED: { id: string; session: string | null; minute: number; event?: "thumbs_up" | "resolved" }[] = [
  { id: "q1a", session: "q1", minute: 0 },
  { id: "q_none_liked", session: null, minute: 2, event: "thumbs_up" },
  { id: "q_none", session: null, minute: 3 },
  { id: "s1a", session: "s1", minute: 60, event: "thumbs_up" },
  { id: "s2a", session: "s2", minute: 61 },
  { id: "s3a", session: "s3", minute: 62 },
  { id: "s3b", session: "s3", minute: 63, event: "resolved" },
  { id: "e_none_1", session: null, minute: 64 },
  { id: "e_none_2", session: null, minute: 65 },
];

const RANGES = { quiet: [0, 10], events: [60, 70] } as const;

let folder: string;
let dataDir: string;
let serve: ServeWithUi | undefined;
let child: ChildProcess | undefined;

function request(planned: (typeof PLANNED)[number], index: number): PlannedRequest {
  const startedAtMs = T0 + planned.minute * MINUTE;
  return {
    caseResultId: `cr_${planned.id}`,
    traceId: `d${index}`.padStart(32, "0"),
    sessionId: planned.session,
    startedAtMs,
    feedback: planned.event === undefined ? [] : [{ kind: planned.event, recorded_at: new Date(startedAtMs + 30_000).toISOString() }],
  };
}

const iso = (minute: number): string => new Date(T0 + minute * MINUTE).toISOString();

/** The report's HTML over a range. */
async function reportHtml(name: keyof typeof RANGES): Promise<string> {
  const out = path.join(folder, `${name}.html`);
  const [from, to] = RANGES[name];
  const run = spawnSync(process.execPath, [ragscope, "report", "--data-dir", dataDir, "--out", out, "--from", iso(from), "--to", iso(to)], {
    cwd: projectRoot,
    encoding: "utf8",
    env: { ...process.env, RAGSCOPE_CONFIG: "", RAGSCOPE_CLICKHOUSE_URL: "" },
  });
  assert.equal(run.status, 0, run.stderr);
  return readFile(out, "utf8");
}

/** The data-value of a metric's row in the report's behaviour table ("" = no data). */
function behaviourValue(html: string, metric: string): string {
  const row = new RegExp(`<tr data-behaviour="${metric}"[^>]*>.*?<td class="number" data-value="([^"]*)"`).exec(html);
  assert.ok(row, `no behaviour row ${metric}`);
  return row[1]!;
}

interface ApiRow {
  metric: string;
  value: number | null;
  count: number;
  total: number;
  withoutEvidence: string | null;
}

/** The abandonment row of /api/quality over a range. */
async function apiRow(name: keyof typeof RANGES): Promise<ApiRow> {
  const [from, to] = RANGES[name];
  const response = await fetch(`${serve!.uiUrl}/api/quality?from=${encodeURIComponent(iso(from))}&to=${encodeURIComponent(iso(to))}`, { headers: { Authorization: `Bearer ${TOKEN}` } });
  assert.equal(response.status, 200, await response.clone().text());
  const body = (await response.json()) as { behaviour: { rows: ApiRow[] } };
  const row = body.behaviour.rows.find((candidate) => candidate.metric === "abandonment_rate");
  assert.ok(row, "an abandonment row");
  return row;
}

before(async () => {
  folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-abandonment-"));
  dataDir = path.join(folder, "chdb");
  await writeToFolder(dataDir, PLANNED.map((planned, index) => ({ caseResult: plannedCaseResult(request(planned, index)), evaluationResults: [] })));
});

after(async () => {
  if (child?.exitCode === null) child.kill("SIGKILL");
  await rm(folder, { recursive: true, force: true });
});

describe("the abandonment rate counts sessions with an id, and is no data without a session event", () => {
  test("ragscope report: no data where no session carries an event, 1/3 over the sessions with an id", async () => {
    const quiet = await reportHtml("quiet");
    assert.equal(behaviourValue(quiet, "abandonment_rate"), "", "no session carries a user event: no data");
    assert.match(quiet, /data-behaviour-evidence="missing">No request of the range carries a user event and a session id: no data, not 0\. Metrics: [^<]*User abandonment rate/);
    const events = await reportHtml("events");
    assert.equal(Number(behaviourValue(events, "abandonment_rate")), 1 / 3);
  });

  test("the UI's /api/quality says the same, with the counts worked by hand", async () => {
    serve = await startServeWithUi(dataDir, { RAGSCOPE_UI_TOKENS: `olga=${TOKEN}`, RAGSCOPE_UI_TENANT_TOKENS: "" });
    child = serve.child;
    const quiet = await apiRow("quiet");
    assert.deepEqual([quiet.value, quiet.count, quiet.total], [null, 0, 0]);
    assert.equal(quiet.withoutEvidence, "No request of the range carries a user event and a session id: no data, not 0.");
    const events = await apiRow("events");
    assert.deepEqual([events.value, events.count, events.total, events.withoutEvidence], [1 / 3, 3, 1, null]);
    child.kill("SIGTERM");
    assert.equal(await serve.exited, 0, serve.output());
  });
});
