/**
 * The store's parts, rows and bytes per table (store-parts.ts, shown on
 * /metrics) against the engine's own answers: Case Results written through
 * the sink into the embedded engine in three writes, merges stopped so that
 * nothing changes between the readings, then each written table's rows compared with
 * `SELECT count()` of the table (every active part's rows, duplicates not
 * merged away included, as the gauge counts them) and its parts with the
 * writes made. An empty table is listed with 0, and a table of another
 * database is not listed.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createDefaultRegistry } from "../../../evaluators/default-registry.js";
import { evaluateCaseResult } from "../../../evaluators/evaluate-case-result.js";
import { quoteIdentifier } from "../../../store/clickhouse/clickhouse-connection.js";
import { readStoreParts, type StoreParts } from "../../../store/clickhouse/store-parts.js";
import { buildCaseResult } from "../../support/case-results.js";
import { queryRows, temporaryStore, type TemporaryStore } from "../../support/temporary-store.js";

const WRITES = 3;
/**
 * The tables a write fills at once: the sink's and its materialized views' targets. The rollups are recomputed in the
 * background after a write (metric-rollups.ts), so their rows may change between two readings.
 */
const WRITTEN = ["case_results", "evaluation_results", "metric_values", "trace_list", "trace_list_metrics"];
const PER_WRITE = 4;

describe("the store's parts, rows and bytes per table", () => {
  let temporary: TemporaryStore;
  let other: TemporaryStore;
  let parts: StoreParts;

  before(async () => {
    temporary = await temporaryStore();
    other = await temporaryStore({ beside: temporary });
    const database = quoteIdentifier(temporary.connection.database);
    // Merges stopped: the parts the writes make stay as they are between the readings compared below.
    for (const name of WRITTEN) await temporary.connection.client.command({ query: `SYSTEM STOP MERGES ${database}.${quoteIdentifier(name)}` });
    const registry = createDefaultRegistry();
    for (let write = 0; write < WRITES; write += 1) {
      const batch = Array.from({ length: PER_WRITE }, (_, index) => {
        const base = buildCaseResult({ output: `answer ${write}-${index}` });
        const caseResult = { ...base, case_result_id: `cr_${write}_${index}`, trace_id: `${write}${index}`.padStart(32, "a") };
        return evaluateCaseResult(registry, caseResult, null, caseResult.started_at);
      });
      const written = await temporary.store.results.write(batch);
      assert.ok(written.ok, written.ok ? "" : written.error.message);
    }
    // The other database holds a case result of its own, which must not be counted here.
    const otherBase = buildCaseResult({ output: "elsewhere" });
    const elsewhere = await other.store.results.write([evaluateCaseResult(registry, { ...otherBase, case_result_id: "cr_elsewhere" }, null, otherBase.started_at)]);
    assert.ok(elsewhere.ok);
    parts = await readStoreParts(temporary.connection);
  });

  after(async () => {
    await other?.cleanup();
    await temporary?.cleanup();
  });

  const table = (name: string) => {
    const found = parts.tables.find((entry) => entry.table === name);
    assert.ok(found, `${name} is listed: ${parts.tables.map((entry) => entry.table).join(", ")}`);
    return found;
  };

  test("each written table's rows are what count() reads from it", async () => {
    const database = quoteIdentifier(temporary.connection.database);
    for (const name of WRITTEN) {
      const [counted] = await queryRows<{ rows: string }>(temporary.connection, `SELECT count() AS rows FROM ${database}.${quoteIdentifier(name)}`);
      assert.ok(Number(counted!.rows) > 0, name);
      assert.equal(table(name).rows, Number(counted!.rows), name);
    }
    assert.equal(table("case_results").rows, WRITES * PER_WRITE, "the other database's case result is not counted");
  });

  test("one part per write in a table whose merges are stopped, all in one partition; bytes on disk for a table with rows, 0 for an empty one", () => {
    const caseResults = table("case_results");
    assert.equal(caseResults.activeParts, WRITES);
    assert.equal(caseResults.largestPartitionParts, WRITES, "the writes' rows start the same month: one partition");
    assert.ok(caseResults.bytesOnDisk > 0);
    const labels = table("human_labels");
    assert.deepEqual({ ...labels, table: undefined }, { table: undefined, activeParts: 0, largestPartitionParts: 0, rows: 0, bytesOnDisk: 0 });
  });

  test("the engine's part limits: it slows inserts before it refuses them", () => {
    assert.ok(parts.partsToDelayInsert !== null && parts.partsToThrowInsert !== null);
    assert.ok(parts.partsToDelayInsert > 0 && parts.partsToDelayInsert < parts.partsToThrowInsert, JSON.stringify(parts));
  });
});
