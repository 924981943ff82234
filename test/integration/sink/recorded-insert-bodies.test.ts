/**
 * The sink stores exactly the bytes it stored before its row builder was made
 * faster (issue 13): the insert bodies, the statements sent to the engine and
 * the rows read back are compared with those the previous implementation
 * produced for the same batch (test/data/sink-insert-bodies, recorded at
 * 25c10e9 with the command in its README) — hostile text, NULLs, values that
 * are not finite, tombstones, partial traces and raw spans included.
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { after, before, describe, test } from "node:test";
import { ClickHouseSink } from "../../../store/clickhouse/clickhouse-sink.js";
import { batchBodies } from "../../../store/clickhouse/tab-separated-batch.js";
import type { CaseEvaluation } from "../../../evaluators/evaluate-case-result.js";
import { expectedFile, observedConnection, readBatch, recordedClockMs, recordedDatasetOf, storedRows, type RecordedInsert, type RecordedInsertBodies } from "../../support/sink-insert-bodies.js";
import { temporaryStore, type TemporaryStore } from "../../support/temporary-store.js";

describe("the sink's insert bodies and stored rows, against the recording of the previous implementation", () => {
  let store: TemporaryStore;
  let batch: CaseEvaluation[];
  let expected: RecordedInsertBodies;
  before(async () => {
    store = await temporaryStore();
    batch = await readBatch();
    expected = JSON.parse(await readFile(expectedFile, "utf8")) as RecordedInsertBodies;
  });
  after(async () => {
    await store.cleanup();
  });

  test("the deduplication token and the four TabSeparated bodies are the recorded bytes", () => {
    const bodies = batchBodies(batch, recordedDatasetOf, recordedClockMs);
    assert.equal(bodies.token, expected.token);
    assert.equal(bodies.metricValues.toString("utf8"), expected.bodies.metric_values);
    assert.equal(bodies.metricRows, expected.bodies.metric_rows);
    assert.equal(bodies.evaluationResults.toString("utf8"), expected.bodies.evaluation_results);
    assert.equal(bodies.traceSpans.toString("utf8"), expected.bodies.trace_spans);
    assert.equal(bodies.caseResults.toString("utf8"), expected.bodies.case_results);
  });

  test("a write sends the recorded statements and bodies, and the engine stores the recorded rows", async () => {
    const inserts: RecordedInsert[] = [];
    const sink = new ClickHouseSink(observedConnection(store.connection, inserts), { now: () => recordedClockMs, datasetOf: recordedDatasetOf });
    assert.deepEqual(await sink.write(batch), { ok: true, value: undefined });
    assert.deepEqual(
      inserts.map((insert) => ({ query: insert.query.replaceAll(store.connection.database, "{{database}}"), body: insert.body })),
      expected.inserts,
    );
    const stored = await storedRows(store.connection);
    for (const table of Object.keys(expected.storedRows)) assert.equal(stored[table], expected.storedRows[table], `${table}: stored rows differ from the recording`);
  });
});
