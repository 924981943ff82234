/**
 * `ragscope eval` does not decide on results whose judge work had not finished:
 * when late judge work is still queued or running at the end of
 * --evaluation-timeout-ms, the results loaded then lack the judged metrics,
 * so eval says so and exits 2 ("could not decide") instead of writing them as
 * if complete. The judge endpoint (a fake: the one thing here we do not run)
 * never answers, so the judge cannot finish within the wait, whatever the
 * machine's speed; its calls end later on the judge's timeout.
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { parse as parseYaml } from "yaml";
import { reply, startFakeChatCompletionsServer, type FakeChatCompletionsServer } from "../../support/fake-chat-completions-server.js";
import { projectRoot, runRagscope } from "./support/run-ragscope.js";

let folder: string;
let endpoint: FakeChatCompletionsServer;
before(async () => {
  folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-late-judge-"));
  endpoint = await startFakeChatCompletionsServer();
  endpoint.respondWith(() => reply.hang());
});
after(async () => {
  await endpoint.close();
  await rm(folder, { recursive: true, force: true });
});

test("judge work still running when the evaluation wait ends: eval names it and exits 2", async () => {
  const source = parseYaml(await readFile(path.join(projectRoot, "examples/datasets/policy-regression.yaml"), "utf8"), { maxAliasCount: -1 }) as { dataset_id: string; dataset_version: string; cases: { case_id: string }[] };
  const dataset = path.join(folder, "one-case.json");
  await writeFile(dataset, JSON.stringify({ dataset_id: source.dataset_id, dataset_version: source.dataset_version, cases: source.cases.filter((item) => item.case_id === "rag_return_window_en_001") }));
  const finished = await runRagscope(
    ["eval", "--dataset", dataset, "--task", "examples/policy-assistant/eval-task.ts", "--data-dir", path.join(folder, "store"), "--evaluation-timeout-ms", "1000"],
    { RAGSCOPE_JUDGE_BASE_URL: endpoint.baseUrl, RAGSCOPE_JUDGE_MODEL: "never-answers", RAGSCOPE_JUDGE_METRICS: "faithfulness", RAGSCOPE_JUDGE_TIMEOUT_MS: "5000" },
  );
  assert.equal(finished.status, 2, `${finished.stdout}\n${finished.stderr}`);
  assert.match(`${finished.stdout}\n${finished.stderr}`, /judge or embedding work was still queued or running when the wait for evaluation ended \(1000 ms after the last case, --evaluation-timeout-ms\): judged metrics of some cases are missing/);
  assert.ok(endpoint.requests.length >= 1, "the judge was called");
});
