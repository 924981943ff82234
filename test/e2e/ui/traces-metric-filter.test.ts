/**
 * The traces list's metric filter, over HTTP from `ragscope serve` (a
 * subprocess) on a stored folder: a metric name that no evaluator stores is
 * 400 naming it and the closest names, on the HTML page and the JSON API
 * alike — it used to be 200 with an empty list whose message blamed the
 * service, tenant or route. A known metric still filters (the control), and
 * an empty result names the filters that were given.
 *
 * The store: three requests with context_recall 0.2, 0.4 and 0.9 and a
 * judge_cost of 0.0003 each. By hand: context_recall below 0.5 → the first
 * two; below 0.1 → none.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { measured, plannedCaseResult, writeToFolder } from "../../support/stored-requests.js";
import { startServeWithUi, type ServeWithUi } from "../../support/serve-with-ui.js";

const TOKEN = "metric-filter-token-0123456789abcdef";
const RECALLS = [0.2, 0.4, 0.9];

let folder: string;
let serve: ServeWithUi;

const get = (address: string) => fetch(`${serve.uiUrl}${address}`, { headers: { authorization: `Bearer ${TOKEN}` } });

before(async () => {
  folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-metric-filter-"));
  const dataDir = path.join(folder, "chdb");
  const startedAtMs = Date.parse("2026-05-04T08:00:00.000Z");
  await writeToFolder(
    dataDir,
    RECALLS.map((recall, index) => {
      const caseResultId = `cr_${index + 1}`;
      return {
        caseResult: plannedCaseResult({ caseResultId, traceId: `${index + 1}`.padStart(32, "0"), startedAtMs: startedAtMs + index * 60_000 }),
        evaluationResults: [measured(caseResultId, "context.coverage", { context_recall: recall }, startedAtMs + index * 60_000 + 5_000), measured(caseResultId, "judge.faithfulness", { faithfulness: 1, judge_cost: 0.0003 }, startedAtMs + index * 60_000 + 5_000)],
      };
    }),
  );
  serve = await startServeWithUi(dataDir, { RAGSCOPE_UI_TOKENS: `olga=${TOKEN}`, RAGSCOPE_UI_TENANT_TOKENS: "" });
});

after(async () => {
  if (serve?.child.exitCode === null) {
    serve.child.kill("SIGTERM");
    await serve.exited;
  }
  await rm(folder, { recursive: true, force: true });
});

describe("the traces list's metric filter", () => {
  test("a misspelled metric on the JSON API: 400 naming it and the closest name; known names, the judge's cost among them, still filter", async () => {
    const known = await get("/api/traces?metric=context_recall&below=0.5");
    assert.equal(known.status, 200);
    assert.deepEqual(((await known.json()) as { traces: { caseResultId: string }[] }).traces.map((trace) => trace.caseResultId).sort(), ["cr_1", "cr_2"]);
    const judgeCost = await get("/api/traces?metric=judge_cost&above=0");
    assert.equal(judgeCost.status, 200);
    assert.equal(((await judgeCost.json()) as { traces: unknown[] }).traces.length, 3);
    const answer = await get("/api/traces?metric=contxt_recall&below=0.5");
    assert.equal(answer.status, 400);
    const { error } = (await answer.json()) as { error: string };
    assert.match(error, /^metric=contxt_recall is not a metric ragscope stores.* did you mean context_recall\b/);
  });

  test("a misspelled metric on the HTML page: 400, the error naming it and the closest name, no blame on service, tenant or route", async () => {
    const answer = await get("/traces?metric=contxt_recall&below=0.5");
    assert.equal(answer.status, 400);
    const page = await answer.text();
    const error = /<p class="error" id="error">([^<]*)<\/p>/.exec(page)?.[1] ?? "";
    assert.match(error, /metric=contxt_recall is not a metric ragscope stores.* did you mean context_recall\b/);
    assert.doesNotMatch(page, /id="list-empty"/);
  });

  test("a name far from every metric: 400 without a guess", async () => {
    const answer = await get("/api/traces?metric=banana&below=1");
    assert.equal(answer.status, 400);
    const { error } = (await answer.json()) as { error: string };
    assert.match(error, /^metric=banana is not a metric ragscope stores, so no trace could match it \(/);
  });

  test("a known metric no trace meets: the empty list names the filters given", async () => {
    const answer = await get("/traces?metric=context_recall&below=0.1");
    assert.equal(answer.status, 200);
    const message = /<p id="list-empty" class="muted">([^<]*)<\/p>/.exec(await answer.text())?.[1] ?? "";
    assert.match(message, /^No stored trace meets metric=context_recall, below=0\.1: .*a metric bound matches only traces with a value of that metric beyond it/);
  });
});
