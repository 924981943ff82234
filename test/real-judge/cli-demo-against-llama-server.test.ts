/**
 * `ragscope demo` as a user runs it (a subprocess of bin/ragscope.js), judging with a real llama.cpp `llama-server`
 * (SmolLM2-135M, test/real-judge/prepare-llama-server.sh; servers and checks in
 * real-cli-support.ts) through
 * RAGSCOPE_JUDGE_BASE_URL, and measuring answer_embedding_similarity with a
 * second one started with `--embeddings` through RAGSCOPE_EMBEDDINGS_BASE_URL.
 *
 * Bounded: one English case of the example dataset, two of its judged
 * metrics (RAGSCOPE_JUDGE_METRICS; each is one real call, a minute or more on
 * a loaded 2-core machine), answers capped at 64 tokens. BERTScore-style
 * token matching comes from a third server, `--pooling none`. The model is far too small to judge
 * well, so nothing says what a verdict should be. Read back from the store
 * (cli-eval-…: from eval's results JSON), each judged metric is a validated
 * value in 0..1 with a pass or a fail, or an `error` with the grader's reason
 * and a null value — never NaN, never a pass without a value; and the tokens
 * and cost recorded are exactly the usage the server reported, seen by a
 * recording proxy between ragscope and the server, priced at the configured
 * prices.
 */

import assert from "node:assert/strict";
import path from "node:path";
import { after, before, test } from "node:test";
import { openClickHouse } from "../../store/clickhouse/clickhouse-connection.js";
import { queryRows } from "../support/temporary-store.js";
import { assertLedgerIsTheServers, CASE_ID, COMMAND_TIMEOUT_MS, run, startRealJudgeFixture, type RealJudgeFixture, type StoredEvaluation } from "./real-cli-support.js";

let fixture: RealJudgeFixture;
before(async () => {
  fixture = await startRealJudgeFixture();
});
after(async () => {
  await fixture?.stop();
});

test("ragscope demo: every judged metric stored as a value or a grader error with its reason, at the server's usage", async () => {
  const dataDir = path.join(fixture.folder, "demo-store");
  const finished = await run(["demo", "--dataset", fixture.dataset, "--data-dir", dataDir, "--run-id", "real-demo", "--timeout-ms", String(COMMAND_TIMEOUT_MS)], fixture.environment);
  assert.equal(finished.status, 0, `${finished.stdout}\n${finished.stderr}`);
  assert.match(finished.stdout, /judging with the LLM judge smollm2-135m at .*metrics faithfulness, answer_correctness; embedding similarity with smollm2-135m at .*; BERTScore-style token matching with smollm2-135m at /);

  const connection = await openClickHouse({ url: null, username: "default", password: "", database: "ragscope", dataPath: dataDir });
  try {
    const rows = await queryRows<{ payload: string }>(connection, "SELECT payload FROM {{database}}.evaluation_results FINAL WHERE run_id = {run:String} AND case_id = {case:String}", { run: "real-demo", case: CASE_ID });
    assertLedgerIsTheServers(rows.map((row) => JSON.parse(row.payload) as StoredEvaluation), fixture.proxy.exchanges, "demo");
  } finally {
    await connection.close();
  }
});
