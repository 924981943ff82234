/**
 * Identifiers that arrive in spans — run, case and dataset ids and versions,
 * tenant, route, service name — are stored, grouped by, offered as dashboard
 * variables and printed in reports. A hostile one (quotes, backslashes, `\N`,
 * NUL, newlines, `$$`, comment markers, Unicode separators, or just huge) is
 * refused at ingestion: not stored, not altered, noted on the Case Result and
 * counted; the trace is still evaluated. Real OTLP/JSON to the embedded
 * collector, read back from the store.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { caseResult as caseResultSchema } from "../../contracts/case-result.js";
import { identifierProblem } from "../../contracts/identifiers.js";
import type { EmbeddedCollector } from "../../collector/wiring/run/embedded-collector.js";
import { startCollectorForTests, type CollectorForTests } from "../support/embedded-collector-for-tests.js";
import { HOSTILE_STRINGS } from "../support/hostile-strings.js";
import { queryRows } from "../support/temporary-store.js";
import { recordAttack, residentMemoryMb } from "../support/attack-report.js";


const text = (value: string) => ({ stringValue: value });

function requestWith(traceId: string, spanId: string, values: { runId: string; tenantId: string; route: string; service: string }) {
  return {
    resourceSpans: [
      {
        resource: { attributes: [{ key: "service.name", value: text(values.service) }] },
        scopeSpans: [
          {
            spans: [
              {
                traceId,
                spanId,
                name: "rag.request",
                kind: 1,
                startTimeUnixNano: "1700000000000000000",
                endTimeUnixNano: "1700000000100000000",
                attributes: [
                  { key: "openinference.span.kind", value: text("CHAIN") },
                  { key: "ragscope.stage", value: text("request") },
                  { key: "ragscope.query", value: text("q") },
                  { key: "ragscope.run_id", value: text(values.runId) },
                  { key: "ragscope.tenant_id", value: text(values.tenantId) },
                  { key: "ragscope.route", value: text(values.route) },
                ],
              },
            ],
          },
        ],
      },
    ],
  };
}

describe("identifiers from spans", () => {
  let running: CollectorForTests;
  let collector: EmbeddedCollector;
  before(async () => {
    running = await startCollectorForTests({});
    collector = running.collector;
  });
  after(async () => running.stop());

  async function storedByTrace(): Promise<Map<string, ReturnType<typeof caseResultSchema.parse>>> {
    assert.ok(await collector.waitUntilIdle(20_000));
    const rows = await queryRows<{ payload: string }>(collector.store.connection, "SELECT payload FROM {{database}}.case_results FINAL");
    return new Map(rows.map((row) => caseResultSchema.parse(JSON.parse(row.payload))).map((result) => [result.trace_id, result]));
  }

  test("the documented pattern: letters and digits of any script, _ - . : / @ +, up to 128 characters; routes may hold { }", () => {
    for (const good of ["demo-refund_rag_regression_set-v5", "tenant:acme@eu", "客服租户", "v2.1+build", "x".repeat(128)]) assert.equal(identifierProblem(good), null, good);
    assert.equal(identifierProblem("/orders/{id}", "route"), null);
    assert.notEqual(identifierProblem("/orders/{id}"), null, "braces only in routes");
    for (const hostile of HOSTILE_STRINGS) assert.notEqual(identifierProblem(hostile), null, JSON.stringify(hostile));
  });

  test("hostile values are refused (left empty, noted, counted), valid ones kept, and every trace is still evaluated", async () => {
    const sent: { traceId: string; hostile: string }[] = [];
    for (const [index, hostile] of HOSTILE_STRINGS.entries()) {
      const traceId = (index + 1).toString(16).padStart(32, "c");
      sent.push({ traceId, hostile });
      const body = requestWith(traceId, (index + 1).toString(16).padStart(16, "d"), { runId: hostile, tenantId: hostile, route: hostile, service: hostile });
      const response = await fetch(`${collector.receiverUrl}/v1/traces`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
      assert.equal(response.status, 200);
    }
    const good = { traceId: "e".repeat(32), values: { runId: "run-2026.12_01", tenantId: "acme_shop", route: "/answer/{topic}", service: "support-bot" } };
    await fetch(`${collector.receiverUrl}/v1/traces`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(requestWith(good.traceId, "f".repeat(16), good.values)) });

    const stored = await storedByTrace();
    for (const { traceId, hostile } of sent) {
      const result = stored.get(traceId);
      assert.ok(result, `trace for ${JSON.stringify(hostile)} was evaluated and stored`);
      assert.equal(result.run_id, "");
      assert.equal(result.rag_observation.tenant_id, null);
      assert.equal(result.rag_observation.route, null);
      assert.equal(result.rag_observation.service_name, null);
      const refused = result.rag_observation.malformed_attributes.filter((note) => note.kind === "invalid_identifier");
      assert.deepEqual(refused.map((note) => note.attribute).sort(), ["ragscope.route", "ragscope.run_id", "ragscope.tenant_id", "service.name"]);
      assert.ok(!JSON.stringify(result).includes(hostile), "the refused value is stored nowhere in the Case Result");
    }
    const kept = stored.get(good.traceId)!;
    assert.equal(kept.run_id, good.values.runId);
    assert.equal(kept.rag_observation.tenant_id, good.values.tenantId);
    assert.equal(kept.rag_observation.route, good.values.route);
    assert.equal(kept.rag_observation.service_name, good.values.service);
    assert.deepEqual(kept.rag_observation.malformed_attributes, []);
    assert.equal(collector.worker.counters.rejectedIdentifiers, HOSTILE_STRINGS.length * 4);
    const columns = await queryRows<{ values: number }>(collector.store.connection, "SELECT countIf(run_id != '' OR tenant_id != '' OR service_name != '') AS values FROM {{database}}.case_results FINAL WHERE trace_id != {good:String}", { good: good.traceId });
    assert.equal(Number(columns[0]!.values), 0, "no hostile value reached a stored column");
    recordAttack({ attack: `${HOSTILE_STRINGS.length} hostile identifiers in run, tenant, route and service`, outcome: "refused at ingestion, noted and counted; traces evaluated", peakRssMb: residentMemoryMb() });
  });
});
