/**
 * The trace page says which span attributes the collector refused or changed
 * (the Case Result's malformed_attributes): a route refused as an identifier
 * showed only as a missing route, with no way to learn why. The UI server
 * in-process on 127.0.0.1 with the in-memory store, its page read over HTTP.
 * And the list refuses a verdict or root cause no trace can have.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createMemoryStore } from "../../../store/memory/memory-store.js";
import { startUiServer, type UiServer } from "../../../ui/ui-server.js";
import { buildCaseResult } from "../../support/case-results.js";

describe("the trace page lists the attributes not taken as sent", () => {
  let server: UiServer;
  before(async () => {
    const store = createMemoryStore();
    const refused = buildCaseResult({ output: "an answer" });
    const note = { span_id: "1000000000000001", span_name: "rag.request", attribute: "ragscope.route", kind: "invalid_identifier" as const, error: "holds characters outside letters, digits and _ - . : / @ + { }" };
    const written = await store.results.write([
      { caseResult: { ...refused, case_result_id: "cr_with_note", rag_observation: { ...refused.rag_observation, malformed_attributes: [note] } }, evaluationResults: [] },
      { caseResult: { ...buildCaseResult({ output: "another answer" }), case_result_id: "cr_without_note" }, evaluationResults: [] },
      {
        caseResult: { ...refused, case_result_id: "cr_numbers", rag_observation: { ...refused.rag_observation, latency_ms: 1.173341 } },
        evaluationResults: [
          {
            evaluation_result_id: "er_numbers",
            case_result_id: "cr_numbers",
            evaluator_id: "retrieval.ranking",
            evaluator_version: "1",
            metric_values: { precision_at_3: 1 / 3, recall_at_5: 1, mrr: null },
            outcome: "measured",
            reason: "scripted",
            evidence_refs: [],
            confidence: { value: 1, semantics: "deterministic_rule" },
            review_required: false,
            error_type: "none",
            evaluated_at: "2026-07-08T09:00:00.000Z",
          },
        ],
      },
      { caseResult: { ...refused, case_result_id: "cr_no_chunks", rag_observation: { ...refused.rag_observation, retrieved_chunks: [] } }, evaluationResults: [] },
      {
        caseResult: {
          ...refused,
          case_result_id: "cr_stages",
          rag_observation: { ...refused.rag_observation, stage_timings: ["cite", "retrieve", "request", "generate", "context"].map((stage, index) => ({ stage, span_name: `rag.${stage}`, duration_ms: index + 1, status: "ok" as const })) },
        },
        evaluationResults: [],
      },
    ]);
    assert.ok(written.ok);
    server = await startUiServer({ host: "127.0.0.1", port: 0, store, access: { tokens: new Map() } });
  });
  after(() => server?.close());

  test("a refused route is named with its span and why; a trace without notes has no such section", async () => {
    const page = await (await fetch(`${server.url}/traces/cr_with_note`)).text();
    const section = /<section id="malformed-attributes">([\s\S]*?)<\/section>/.exec(page)?.[1] ?? "";
    // Not "missing" without exception: where two levels of one LLM call recorded different usage, the note says the larger was taken.
    assert.match(section, /a field they would have filled shows as missing, unless the note says which value was taken instead\./);
    assert.match(section, /<td>rag\.request<\/td><td>ragscope\.route<\/td><td>invalid_identifier<\/td><td>holds characters outside letters, digits and _ - \. : \/ @ \+ \{ \}<\/td>/);
    assert.doesNotMatch(await (await fetch(`${server.url}/traces/cr_without_note`)).text(), /id="malformed-attributes"/);
  });

  test("stages are shown in pipeline order, the request first, whatever order their spans were recorded in", async () => {
    const page = await (await fetch(`${server.url}/traces/cr_stages`)).text();
    assert.deepEqual([...page.matchAll(/<tr class="stage"><td>([a-z_]+)<\/td>/g)].map((match) => match[1]), ["request", "retrieve", "context", "generate", "cite"]);
  });

  test("numbers are rounded for reading (latency to 0.1 ms, metric values to 4 decimals as trec_eval prints), the exact value in the title", async () => {
    const page = await (await fetch(`${server.url}/traces/cr_numbers`)).text();
    assert.match(page, /latency 1\.2 ms/);
    assert.match(page, /<span title="0\.3333333333333333">precision_at_3=0\.3333<\/span>/);
    assert.match(page, /<span title="1">recall_at_5=1<\/span>/);
    assert.match(page, /mrr=n\/a/);
    const list = await (await fetch(`${server.url}/traces/rows`)).text();
    assert.match(list, /<td class="latency" title="1\.173341">1\.2<\/td>/);
  });

  test("a retrieval that returned no chunks says so, apart from one not recorded", async () => {
    assert.match(await (await fetch(`${server.url}/traces/cr_no_chunks`)).text(), /<p id="no-chunks">The retrieval returned no chunks\.<\/p>/);
  });
});

describe("an empty store, and filters no trace can meet", () => {
  let server: UiServer;
  before(async () => {
    server = await startUiServer({ host: "127.0.0.1", port: 0, store: createMemoryStore(), access: { tokens: new Map() } });
  });
  after(() => server?.close());

  test("an empty list and an empty review queue say why they are empty", async () => {
    assert.match(await (await fetch(`${server.url}/traces`)).text(), /<p id="list-empty" class="muted">No traces stored yet: send spans/);
    assert.match(await (await fetch(`${server.url}/traces?service=nothing-here`)).text(), /<p id="list-empty" class="muted">No stored trace meets service=nothing-here: /);
    assert.match(await (await fetch(`${server.url}/review`)).text(), /<p id="queue-empty" class="muted">Nothing waits for review/);
  });

  test("an unknown verdict or root cause is 400 naming the allowed values, not an empty list", async () => {
    const verdict = await fetch(`${server.url}/api/traces?verdict=faild`);
    assert.equal(verdict.status, 400);
    assert.match(((await verdict.json()) as { error: string }).error, /verdict=faild is not a verdict: use one of passed, failed, review_required, unjudged, not_evaluated/);
    const rootCause = await fetch(`${server.url}/api/traces?root_cause=retrieval_miss`);
    assert.equal(rootCause.status, 400);
    assert.match(((await rootCause.json()) as { error: string }).error, /root_cause=retrieval_miss is not a root-cause label: use one of .*RETRIEVAL_MISS/);
    assert.equal((await fetch(`${server.url}/api/traces?verdict=failed&root_cause=RETRIEVAL_MISS`)).status, 200);
  });
});
