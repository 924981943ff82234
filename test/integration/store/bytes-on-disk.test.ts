/**
 * What a trace costs on disk in the tables every trace writes (migration
 * 0022): Case Results built and evaluated as the collector builds them (ids
 * from the trace id, as rebuild-case-result.ts makes them), written through
 * the sink, each table merged into one part, then its compressed bytes a row
 * read from the engine (system.parts).
 *
 * The bounds sit between what the tables took with the engine's default
 * compression (LZ4 leaves the 43 hexadecimal characters of an id at ~34
 * bytes) and what they take with ZSTD(1) on ids, times and numbers: here
 * metric_values 88 → 34 bytes a row, trace_list_metrics 41 → 10,
 * evaluation_results 151 → 88 (the bounds: 55, 20, 115).
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { ClickHouseSink } from "../../../store/clickhouse/clickhouse-sink.js";
import { createDefaultRegistry } from "../../../evaluators/default-registry.js";
import { evaluateCaseResult, type CaseEvaluation } from "../../../evaluators/evaluate-case-result.js";
import { caseResultIdFor } from "../../../contracts/ids.js";
import { buildCaseResult } from "../../support/case-results.js";
import { queryRows, temporaryStore, type TemporaryStore } from "../../support/temporary-store.js";

const TRACES = 2_000;
const BATCH = 500;
const START = Date.parse("2026-11-02T08:00:00.000Z");

/** A 32-character hexadecimal trace id, different for every index and the same in every run. */
function traceIdOf(index: number): string {
  return createHash("sha256").update(`trace ${index}`).digest("hex").slice(0, 32);
}

function evaluations(registry: ReturnType<typeof createDefaultRegistry>, from: number, to: number): CaseEvaluation[] {
  const batch: CaseEvaluation[] = [];
  for (let index = from; index < to; index += 1) {
    const traceId = traceIdOf(index);
    const started = new Date(START + index * 250).toISOString();
    const base = buildCaseResult({
      output: index % 3 === 0 ? "I cannot answer that." : `Refunds take ${1 + (index % 9)} days [chunk_${index % 7}].`,
      retrieved: [
        { chunk_id: `chunk_${index % 7}`, text: `Refunds take ${1 + (index % 9)} days after the return arrives.`, score: 0.81 },
        { chunk_id: `chunk_${(index + 1) % 7}`, text: "Points are kept after a partial refund.", score: 0.42 },
      ],
      contextChunkIds: [`chunk_${index % 7}`],
      context: `Refunds take ${1 + (index % 9)} days after the return arrives.`,
      citations: [`chunk_${index % 7}`],
      caseId: "",
    });
    const caseResult = {
      ...base,
      case_result_id: caseResultIdFor({ traceId, runId: "", caseId: "", caseVersion: "" }),
      trace_id: traceId,
      started_at: started,
      completed_at: started,
      rag_observation: { ...base.rag_observation, query: `how long does refund ${index} take?`, service_name: `service_${index % 4}`, tenant_id: `tenant_${index % 5}` },
    };
    batch.push(evaluateCaseResult(registry, caseResult, null, started));
  }
  return batch;
}

describe("bytes on disk of the tables every trace writes", () => {
  let store: TemporaryStore;
  const bytesPerRow = new Map<string, number>();

  before(async () => {
    store = await temporaryStore();
    const sink = new ClickHouseSink(store.connection);
    const registry = createDefaultRegistry();
    for (let from = 0; from < TRACES; from += BATCH) {
      const written = await sink.write(evaluations(registry, from, Math.min(TRACES, from + BATCH)));
      assert.ok(written.ok, `the sink wrote the batch from ${from}`);
    }
    for (const table of ["metric_values", "trace_list_metrics", "evaluation_results", "case_results"]) {
      await store.connection.client.command({ query: `OPTIMIZE TABLE ${store.connection.database}.${table} FINAL` });
      const [part] = await queryRows<{ bytes: string; rows: string }>(
        store.connection,
        "SELECT sum(data_compressed_bytes) AS bytes, sum(rows) AS rows FROM system.parts WHERE database = {database:String} AND table = {table:String} AND active",
        { database: store.connection.database, table },
      );
      assert.ok(Number(part!.rows) > 0, `${table} has rows`);
      bytesPerRow.set(table, Number(part!.bytes) / Number(part!.rows));
    }
  });

  after(async () => {
    await store?.cleanup();
  });

  test("every Case Result was written once", async () => {
    const [count] = await queryRows<{ count: string }>(store.connection, "SELECT count() AS count FROM {{database}}.case_results FINAL");
    assert.equal(Number(count!.count), TRACES);
  });

  test("a metric value takes at most 55 bytes, its three ids compressed at about half their characters", () => {
    const bytes = bytesPerRow.get("metric_values")!;
    assert.ok(bytes <= 55, `metric_values: ${bytes.toFixed(1)} bytes a row`);
  });

  test("the trace list's copy of a metric value takes at most 20 bytes", () => {
    const bytes = bytesPerRow.get("trace_list_metrics")!;
    assert.ok(bytes <= 20, `trace_list_metrics: ${bytes.toFixed(1)} bytes a row`);
  });

  test("an Evaluation Result, its compressed payload included, takes at most 115 bytes", () => {
    const bytes = bytesPerRow.get("evaluation_results")!;
    assert.ok(bytes <= 115, `evaluation_results: ${bytes.toFixed(1)} bytes a row`);
  });
});
