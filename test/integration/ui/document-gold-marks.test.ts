/**
 * The trace page's "gold?" column reads a case's gold as the metrics do (evaluators/evidence/case-gold-evidence.ts):
 * for a simple-format case naming relevant documents only, the chunks of those documents hold its gold, where the
 * page said "no" for every chunk while retrieval.ranking on the same page said the document was retrieved at rank 2;
 * and a ranking with a chunk lacking its document id is "unknown", as the metrics are then not applicable. The case is
 * read through the simple format's own reader, the UI server in-process with the in-memory store, the page over HTTP.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { evalCase } from "../../../contracts/eval-case.js";
import { simpleCase, simpleToEvalCase } from "../../../collector/wiring/dataset/simple-case.js";
import { createMemoryStore } from "../../../store/memory/memory-store.js";
import { startUiServer, type UiServer } from "../../../ui/ui-server.js";
import { buildCaseResult } from "../../support/case-results.js";

const goldCells = (page: string) => [...page.matchAll(/<td class="gold">(.*?)<\/td>/g)].map((match) => match[1]!.replace(/<[^>]+>/g, ""));

describe("the trace page marks the chunks of a case's relevant documents", () => {
  let server: UiServer;
  before(async () => {
    const store = createMemoryStore();
    const simple = simpleCase.parse({ id: "plans", question: "Which plan includes backups?", relevant_document_ids: ["plan_gold"], case_version: "v1" });
    await store.cases.put([evalCase.parse(simpleToEvalCase(simple, { datasetId: "plans-set", datasetVersion: "1" }))]);
    const withIds = buildCaseResult({ caseId: "plans", retrieved: [{ chunk_id: "other#1", document_id: "other" }, { chunk_id: "plan_gold#1", document_id: "plan_gold" }, { chunk_id: "plan_gold#2", document_id: "plan_gold" }] });
    const withoutIds = buildCaseResult({ caseId: "plans", retrieved: [{ chunk_id: "other#1", document_id: "other" }, { chunk_id: "plan_gold#1", document_id: null }] });
    const written = await store.results.write([
      { caseResult: { ...withIds, case_result_id: "cr_document_ids" }, evaluationResults: [] },
      { caseResult: { ...withoutIds, case_result_id: "cr_no_document_id", run_id: "run_other" }, evaluationResults: [] },
    ]);
    assert.ok(written.ok);
    server = await startUiServer({ host: "127.0.0.1", port: 0, store, access: { tokens: new Map() } });
  });
  after(() => server?.close());

  test("every chunk of a relevant document is gold; a ranking with a chunk lacking its document id is unknown", async () => {
    assert.deepEqual(goldCells(await (await fetch(`${server.url}/traces/cr_document_ids`)).text()), ["no", "yes", "yes"]);
    assert.deepEqual(goldCells(await (await fetch(`${server.url}/traces/cr_no_document_id`)).text()), ["unknown", "unknown"]);
  });
});
