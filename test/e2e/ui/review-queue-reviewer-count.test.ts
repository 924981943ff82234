/**
 * The review queue's "reviewers" column when more reviewers labelled a case
 * than a review needs (REVIEWERS_PER_CASE, 2): it read "3 of 2". As users meet
 * it: `ragscope eval` (a subprocess) over test/e2e/ui/data/two-reviewers.yaml,
 * `ragscope serve` on loopback without tokens (an import keeps its labeler ids),
 * a JSONL import of three reviewers' labels of the case that needs review over
 * HTTP, and the queue page read as HTML before and after it.
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { startServeWithUi, type ServeWithUi } from "../../support/serve-with-ui.js";
import { projectRoot, runRagscope } from "../experiments/support/run-ragscope.js";

const DATASET = path.join(projectRoot, "test/e2e/ui/data/two-reviewers.yaml");
const TASK = path.join(projectRoot, "test/e2e/ui/tasks/listed-chunks-task.ts");
const RUN = "reviewer-count-run";

let folder: string;
let serve: ServeWithUi | null = null;
let needsReview = "";

before(async () => {
  folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-reviewer-count-"));
  const dataDir = path.join(folder, "chdb");
  const output = path.join(folder, "results.json");
  const evaluated = await runRagscope(["eval", "--dataset", DATASET, "--task", TASK, "--run-id", RUN, "--data-dir", dataDir, "--output", output], { RAGSCOPE_CLICKHOUSE_URL: "" });
  // Errored evaluations leave the gate undecided (exit 2); the case whose ranking lists a chunk twice needs review.
  assert.equal(evaluated.status, 2, evaluated.stdout + evaluated.stderr);
  const results = JSON.parse(await readFile(output, "utf8")) as { case_results: { case_result_id: string; case_id: string }[] };
  needsReview = results.case_results.find((item) => item.case_id === "refund_listed_twice")!.case_result_id;
  serve = await startServeWithUi(dataDir, {});
});

after(async () => {
  await serve?.stop();
  await rm(folder, { recursive: true, force: true });
});

describe("review queue: the reviewers column", () => {
  test("no reviewer yet reads '0 of 2'; three reviewers read '3 (2 needed)', not '3 of 2'", async () => {
    const reviewersCell = async () => {
      const page = await (await fetch(`${serve!.uiUrl}/review`)).text();
      const row = new RegExp(`<tr data-case-result-id="${needsReview}">([\\s\\S]*?)</tr>`).exec(page);
      assert.ok(row, `no queue row for ${needsReview}:\n${page}`);
      // Cells: started, case, tenant, verdict, reviewers, you, query.
      return [...row[1]!.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((cell) => cell[1]!)[4];
    };
    assert.equal(await reviewersCell(), "0 of 2");

    // A fail may be given alone (a pass needs every metric of the case labelled).
    const lines = ["alice", "bob", "carol"].map((labeler) => ({ case_result_id: needsReview, metric: "retrieval.ranking", verdict: "fail", labeler_id: labeler }));
    const imported = await fetch(`${serve!.uiUrl}/api/labels.jsonl`, { method: "POST", headers: { "content-type": "application/x-ndjson" }, body: lines.map((line) => JSON.stringify(line)).join("\n") });
    assert.equal(imported.status, 200, await imported.text());
    assert.equal(await reviewersCell(), "3 (2 needed)");
  });
});
