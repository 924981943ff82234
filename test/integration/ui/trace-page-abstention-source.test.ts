/**
 * The trace page names where a value came from. answer.abstention reads an answer's refusal phrases (a heuristic in
 * general, so the metric catalog labels `abstained` "(heuristic)"), but a flag the trace itself carried
 * (`ragscope.answer.abstained`, set by the application) is no guess: the page labelled it "(heuristic)" all the same.
 * Two requests sent as OTLP through the embedded collector's receiver, their trace pages read from the UI over its
 * store: one whose generation carries the flag, one whose answer refuses beside claims of its own (a heuristic
 * reading, still labelled so).
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { UiServer } from "../../../ui/ui-server.js";
import type { CollectorForTests } from "../../support/embedded-collector-for-tests.js";
import { startCollectorForTests } from "../../support/embedded-collector-for-tests.js";
import { queryRows } from "../../support/temporary-store.js";
import { getAs, uiAt } from "../../support/ui-over-stored-requests.js";

const TOKEN = "reviewer-token-abstention";
const FLAGGED = "a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1";
const GUESSED = "b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2";
const START = 1_783_503_000_000_000_000n;

/** One request: a root span and a generation span answering `answer`, carrying the abstention flag when `abstained` is given. */
function requestOtlp(traceId: string, answer: string, abstained: boolean | null): string {
  const text = (value: string) => ({ stringValue: value });
  const span = (spanId: string, name: string, parent: string | null, attributes: unknown[]) => ({
    traceId,
    spanId,
    ...(parent === null ? {} : { parentSpanId: parent }),
    name,
    kind: 1,
    startTimeUnixNano: START.toString(),
    endTimeUnixNano: (START + 100_000_000n).toString(),
    attributes,
  });
  const root = `${traceId.slice(0, 15)}1`;
  return JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: [{ key: "service.name", value: text("abstention-bot") }] },
        scopeSpans: [
          {
            spans: [
              span(root, "rag.request", null, [
                { key: "ragscope.stage", value: text("request") },
                { key: "ragscope.query", value: text("年假可以结转吗？") },
              ]),
              span(`${traceId.slice(0, 15)}2`, "rag.generate", root, [
                { key: "ragscope.stage", value: text("generate") },
                { key: "ragscope.answer", value: text(answer) },
                ...(abstained === null ? [] : [{ key: "ragscope.answer.abstained", value: { boolValue: abstained } }]),
              ]),
            ],
          },
        ],
      },
    ],
  });
}

describe("the trace page says where an abstention value came from", () => {
  let collector: CollectorForTests;
  let server: UiServer;
  const addresses = new Map<string, string>();

  before(async () => {
    collector = await startCollectorForTests();
    for (const [traceId, answer, abstained] of [
      [FLAGGED, "This cannot be answered from the documents.", true],
      [GUESSED, "资料中没有相关信息，但年假是15天。", null],
    ] as const) {
      const answered = await fetch(`${collector.collector.receiverUrl}/v1/traces`, { method: "POST", headers: { "content-type": "application/json" }, body: requestOtlp(traceId, answer, abstained) });
      assert.equal(answered.status, 200, await answered.text());
    }
    assert.ok(await collector.collector.waitUntilIdle(30_000));
    const rows = await queryRows<{ trace_id: string; case_result_id: string }>(collector.collector.store.connection, "SELECT trace_id, case_result_id FROM {{database}}.case_results FINAL");
    for (const row of rows) addresses.set(row.trace_id, `/traces/${row.case_result_id}?trace=${row.trace_id}`);
    assert.equal(addresses.size, 2);
    server = await uiAt(collector, TOKEN, Date.now());
  });
  after(async () => {
    await server?.close();
    await collector?.stop();
  });

  /** The values cell of answer.abstention's row on a trace page. */
  async function abstentionValues(traceId: string): Promise<string> {
    const { status, body } = await getAs(server, TOKEN, addresses.get(traceId)!);
    assert.equal(status, 200, body);
    const row = /<tr class="evaluation" data-evaluator="answer\.abstention">[\s\S]*?<td class="values">([\s\S]*?)<\/td>/.exec(body);
    assert.ok(row, "the page lists answer.abstention's result");
    return row[1]!;
  }

  test("a flag the trace carried is labelled as the trace's, not as a heuristic", async () => {
    const values = await abstentionValues(FLAGGED);
    assert.match(values, /abstained \(from the trace: ragscope\.answer\.abstained\)=1/);
    assert.doesNotMatch(values, /heuristic/);
  });

  test("an abstention read from the answer's words beside its claims is still labelled a heuristic", async () => {
    const values = await abstentionValues(GUESSED);
    assert.match(values, /abstained \(heuristic\)=1/);
  });
});
