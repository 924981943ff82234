/**
 * The session rates (sessions resolved, first-contact resolution) count sessions with an id only, and read "no
 * data" — not 0 % — over a range where no session carries a user event: in the dashboards' panels (their SQL run
 * on the embedded store by `ragscope report`, bin/ragscope.js as a subprocess, reading the session rollups and
 * summaries the store keeps) and in the report's behaviour table (evaluators/behaviour/), which agree.
 *
 * The store, written through the store's own write port (the collector's sink, which keeps the rollups), one
 * service, no run (online traffic), times in whole minutes from T0 (test/support/session-traffic.ts):
 *   quiet range [T0, T0 + 10 min):
 *     session q1: two requests (T0, T0+1), no event;
 *     session q2: one request (T0+2), no event;
 *     no session id: one request (T0+3) with a resolved event — an event, but on no session.
 *   event range [T0 + 60 min, T0 + 70 min):
 *     session s1: two requests (T0+60, T0+61), the second resolved;
 *     session s2: one request (T0+62), resolved — first contact;
 *     session s3: one request (T0+63), no event;
 *     no session id: one request (T0+64) resolved, one (T0+65) without events.
 * Worked by hand:
 *   quiet range: sessions q1, q2, neither with a user event → both rates no data. (Before: the request without
 *     a session id was a session of its own: 1 resolved of 3 sessions = 33.3 %, and first contact 33.3 %.)
 *   event range: sessions s1, s2, s3 → resolved s1, s2 = 2/3 = 66.7 %; first contact s2 = 1/3 = 33.3 %.
 *     (Before: 5 sessions, 3 resolved = 60.0 %, first contact s2 and the resolved request = 40.0 %.)
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { MINUTE, SESSION_TRAFFIC as PLANNED, sessionTrafficRequest, T0 } from "../support/session-traffic.js";
import { plannedCaseResult, writeToFolder } from "../support/stored-requests.js";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const ragscope = path.join(projectRoot, "bin/ragscope.js");

let folder: string;
let dataDir: string;

/** `ragscope report` over [from, to): its printed headline lines and the HTML file. */
function report(name: string, fromMinute: number, toMinute: number): { stdout: string; html: Promise<string> } {
  const out = path.join(folder, `${name}.html`);
  const from = new Date(T0 + fromMinute * MINUTE).toISOString();
  const to = new Date(T0 + toMinute * MINUTE).toISOString();
  const child = spawnSync(process.execPath, [ragscope, "report", "--data-dir", dataDir, "--out", out, "--from", from, "--to", to], {
    cwd: projectRoot,
    encoding: "utf8",
    env: { ...process.env, RAGSCOPE_CONFIG: "", RAGSCOPE_CLICKHOUSE_URL: "" },
  });
  assert.equal(child.status, 0, child.stderr);
  return { stdout: child.stdout, html: readFile(out, "utf8") };
}

/** The headline line of a panel, as printed. */
function printed(stdout: string, title: string): string {
  const line = stdout.split("\n").find((text) => text.startsWith(`  ${title}: `));
  assert.ok(line, `no line "${title}" in:\n${stdout}`);
  return line.slice(`  ${title}: `.length);
}

/** The data-value of a metric's row in the report's behaviour table ("" = no data). */
function behaviourValue(html: string, metric: string): string {
  const row = new RegExp(`<tr data-behaviour="${metric}"[^>]*>.*?<td class="number" data-value="([^"]*)"`).exec(html);
  assert.ok(row, `no behaviour row ${metric}`);
  return row[1]!;
}

before(async () => {
  folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-session-rates-"));
  dataDir = path.join(folder, "chdb");
  await writeToFolder(dataDir, PLANNED.map((planned, index) => ({ caseResult: plannedCaseResult(sessionTrafficRequest(planned, index, "c")), evaluationResults: [] })));
});

after(async () => {
  await rm(folder, { recursive: true, force: true });
});

describe("the session rates in the report's panels and behaviour table", () => {
  test("a range whose sessions carry no user event: no data, though a request without a session id was resolved", async () => {
    const { stdout, html } = report("quiet", 0, 10);
    assert.match(printed(stdout, "User behaviour over the range"), / · Sessions resolved no data · First-contact resolution no data$/);
    assert.match(printed(stdout, "Business: rates over the range"), /First-contact resolution no data/);
    const page = await html;
    assert.equal(behaviourValue(page, "session_resolution_rate"), "");
    assert.equal(behaviourValue(page, "first_contact_resolution"), "");
  });

  test("a range with sessions that carry events: requests without a session id are no sessions", async () => {
    const { stdout, html } = report("events", 60, 70);
    assert.match(printed(stdout, "User behaviour over the range"), / · Sessions resolved 66\.7% · First-contact resolution 33\.3%$/);
    assert.match(printed(stdout, "Business: rates over the range"), /First-contact resolution 33\.3%/);
    const page = await html;
    assert.equal(Number(behaviourValue(page, "session_resolution_rate")), 2 / 3);
    assert.equal(Number(behaviourValue(page, "first_contact_resolution")), 1 / 3);
  });
});
