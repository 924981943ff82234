/**
 * A case of a run sent again is one case of the run on the runs list and in the report's run comparison, as it is
 * for `gate` and the run's summary (store/clickhouse/run-current-results.ts).
 *
 * As a user meets it: an application's harness sends run "nightly-resent"'s case "refund_days" at 23:59 UTC from
 * service "support-bot", then retries it after midnight from the service renamed "support-bot-v2" (a new request:
 * its own trace id, start and service; the same run, case and case version, so the same Case Result id). Its case
 * "shipping_days" is sent once. Run "nightly-once" has one case sent once. `ragscope serve` runs as a child process;
 * the requests are posted to its OTLP receiver. Then, with serve stopped, the built CLI's `ragscope report` compares
 * the two runs on the same data folder.
 *
 * Expected, counted from the requests sent: /api/runs and /runs list nightly-resent with 2 cases (3 requests), and
 * the report's Runs board says "Candidate cases 2" for it, "Baseline cases 1" for nightly-once, and its metrics side
 * by side rest on the newest request of each case both runs ran (refund_days, paired by case id and version as eval
 * pairs them): the retry took 100 ms where the first attempt took 400 ms, so the candidate's latency is 100 ms over
 * 1 value. Before, the runs list counted the rollups' requests (3) and the board
 * every stored Case Result row (3 cases; latency 200 ms over 3 values). The trace list (/traces?run=nightly-resent)
 * shows the 3 requests, and each row's link opens its own request's trace (before, both rows of refund_days
 * linked to its Case Result id alone, which opened the retry's).
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { oneRequestOtlp } from "../../support/one-request-otlp.js";
import { startServeWithUi, type ServeWithUi } from "../../support/serve-with-ui.js";
import { runRagscope } from "../experiments/support/run-ragscope.js";

const DAY_MS = 86_400_000;
const RESENT_RUN = "nightly-resent";
const ONCE_RUN = "nightly-once";

interface Sent {
  traceId: string;
  service: string;
  runId: string;
  caseId: string;
  startMs: number;
  durationMs: number;
}

/** The latest midnight UTC at least a day ago: both sides of it are in the past, whatever the time of day now. */
const midnight = Math.floor(Date.now() / DAY_MS) * DAY_MS - DAY_MS;

const SENT: readonly Sent[] = [
  { traceId: "e1000000000000000000000000000001", service: "support-bot", runId: RESENT_RUN, caseId: "refund_days", startMs: midnight - 60_000, durationMs: 400 },
  { traceId: "e1000000000000000000000000000002", service: "support-bot-v2", runId: RESENT_RUN, caseId: "refund_days", startMs: midnight + 60_000, durationMs: 100 },
  { traceId: "e1000000000000000000000000000003", service: "support-bot-v2", runId: RESENT_RUN, caseId: "shipping_days", startMs: midnight + 120_000, durationMs: 100 },
  { traceId: "e1000000000000000000000000000004", service: "support-bot-v2", runId: ONCE_RUN, caseId: "refund_days", startMs: midnight + 180_000, durationMs: 100 },
];

function otlp(sent: Sent): string {
  return oneRequestOtlp({
    traceId: sent.traceId,
    serviceName: sent.service,
    startMs: sent.startMs,
    durationMs: sent.durationMs,
    spans: [
      {
        name: "rag.request",
        attributes: { "openinference.span.kind": "CHAIN", "ragscope.stage": "request", "ragscope.run_id": sent.runId, "ragscope.case_id": sent.caseId, "ragscope.case_version": "1", "ragscope.query": "what is the refund window?", "ragscope.answer": "30 days" },
      },
    ],
  });
}

describe("a case of a run sent again counts once on the runs list and in the report", () => {
  let folder: string;
  let dataDir: string;
  let serve: ServeWithUi | null = null;
  let listed: { runId: string; cases: number }[] = [];
  let runsPage = "";
  /** The /traces list of the re-sent run: each row's trace id and link, and what the link opened (page and API). */
  const listedRequests: { traceId: string; href: string; pageTraceId: string | null; pageService: string | null; apiTraceId: string; apiService: string }[] = [];

  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-resent-case-"));
    dataDir = path.join(folder, "data");
    serve = await startServeWithUi(dataDir, { RAGSCOPE_QUIET_PERIOD_MS: "200" });
    for (const sent of SENT) {
      const answer = await fetch(`${serve.receiverUrl}/v1/traces`, { method: "POST", headers: { "content-type": "application/json" }, body: otlp(sent) });
      assert.equal(answer.status, 200, await answer.text());
    }
    // Polled (bounded) until every request is stored — the traces list has a row per stored request, the re-sent
    // case's two each with its own trace id — and both runs are listed (the rollups follow within their refresh).
    for (let attempt = 0; ; attempt += 1) {
      const traces: string[] = ((await (await fetch(`${serve.uiUrl}/api/traces?limit=200`)).json()) as { traces: { traceId: string }[] }).traces.map((trace) => trace.traceId);
      listed = ((await (await fetch(`${serve.uiUrl}/api/runs`)).json()) as { runs: { runId: string; cases: number }[] }).runs;
      if (SENT.every((sent) => traces.includes(sent.traceId)) && [RESENT_RUN, ONCE_RUN].every((runId) => listed.some((run) => run.runId === runId))) break;
      if (attempt >= 600) assert.fail(`the requests were not stored and listed within 60 s: ${JSON.stringify({ traces, listed })}\n${serve.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    runsPage = await (await fetch(`${serve.uiUrl}/runs`)).text();
    const tracesPage = await (await fetch(`${serve.uiUrl}/traces?run=${RESENT_RUN}`)).text();
    for (const [, href, traceId] of tracesPage.matchAll(/<tr data-case-result-id="[^"]+">.*?<td><a href="([^"]+)">([^<]+)<\/a>/gs)) {
      const address = href!.replaceAll("&amp;", "&");
      const page = await (await fetch(`${serve.uiUrl}${address}`)).text();
      const detail = (await (await fetch(`${serve.uiUrl}/api${address}`)).json()) as { caseResult: { trace_id: string; rag_observation: { service_name: string } } };
      listedRequests.push({
        traceId: traceId!,
        href: address,
        pageTraceId: /<td id="trace-id">([^<]*)<\/td>/.exec(page)?.[1] ?? null,
        pageService: /<th>service<\/th><td>([^<]*)<\/td>/.exec(page)?.[1] ?? null,
        apiTraceId: detail.caseResult.trace_id,
        apiService: detail.caseResult.rag_observation.service_name,
      });
    }
    await serve.stop();
  });

  after(async () => {
    await serve?.stop();
    await rm(folder, { recursive: true, force: true });
  });

  test("/api/runs and /runs count the run's two cases, not its three requests", () => {
    assert.deepEqual(
      listed.filter((run) => run.runId === RESENT_RUN || run.runId === ONCE_RUN).map((run) => [run.runId, run.cases]),
      [
        [ONCE_RUN, 1],
        [RESENT_RUN, 2],
      ],
    );
    assert.match(runsPage, new RegExp(`<tr data-run-id="${RESENT_RUN}"[^>]*>.*?<td class="cases">2</td>`));
  });

  test("the trace list shows each request of the re-sent case, and each one's link opens its own trace", () => {
    // Newest first: shipping_days (+120 s), the retry of refund_days (+60 s), its first attempt (-60 s).
    assert.deepEqual(
      listedRequests.map((listed) => [listed.traceId, listed.apiTraceId, listed.pageTraceId, listed.apiService, listed.pageService]),
      [SENT[2]!, SENT[1]!, SENT[0]!].map((sent) => [sent.traceId, sent.traceId, sent.traceId, sent.service, sent.service]),
    );
    assert.equal(new Set(listedRequests.map((listed) => listed.href)).size, 3, "three links, one per request");
  });

  test("the report's Runs board counts the re-sent case once", async () => {
    const report = await runRagscope(["report", "--data-dir", dataDir, "--baseline", ONCE_RUN, "--candidate", RESENT_RUN, "--out", path.join(folder, "report.html")], { RAGSCOPE_CLICKHOUSE_URL: "" });
    assert.equal(report.status, 0, report.stdout + report.stderr);
    assert.match(report.stdout, /Pass rates: Baseline cases 1 · Candidate cases 2 · Paired cases 1 · /);
    // Metrics side by side, over the paired case refund_days: the candidate's latency is its newest request's (100 ms),
    // one value — not two values with the first attempt's 400 ms (a mean of 250).
    const html = await readFile(path.join(folder, "report.html"), "utf8");
    const metrics = html.slice(html.indexOf("Metrics side by side"));
    const latency = /<tr><td>latency_ms<\/td>((?:<td[^>]*>[^<]*<\/td>){7})<\/tr>/.exec(metrics);
    assert.ok(latency, "a latency_ms row in Metrics side by side");
    const cells = [...latency[1]!.matchAll(/<td[^>]*>([^<]*)<\/td>/g)].map((match) => match[1]);
    // baseline, candidate, difference, baseline_cases, candidate_cases, baseline_values, candidate_values
    assert.deepEqual(cells, ["100", "100", "0", "1", "1", "1", "1"]);
  });
});
