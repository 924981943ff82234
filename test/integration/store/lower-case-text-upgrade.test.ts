/**
 * Upgrading a store of the release before migration 0034, whose trace list lower-cased each answer and question on
 * every free-text search: after `ragscope migrate` (bin/ragscope.js as a subprocess), every part of trace_list holds
 * the lower-cased copies on disk, and the list finds the requests stored before by any case of their letters, as it
 * did before the upgrade.
 *
 * The earlier store: the migrations through 0033 in an embedded folder, requests written by the sink in two writes
 * (two parts), one of them without a query. Worked by hand (what each text finds, letters of any case):
 *   cr_umlaut   answer "Die Rückerstattung dauert FÜNF Tage."   query "Wie LANGE dauert es?"
 *   cr_accent   answer "Votre RÉSUMÉ est prêt."                query "Où est mon résumé ?"
 *   cr_plain    answer "Points are kept."                      no query
 *   "fünf tage" → cr_umlaut; "résumé" → cr_accent (answer and query); "wie lange" → cr_umlaut (query);
 *   "POINTS ARE" → cr_plain; "é est p" → cr_accent; "tage. wie" → none (an answer and a query are not one text).
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import type { CaseResult } from "../../../contracts/case-result.js";
import { openClickHouse, type ClickHouseConfig } from "../../../store/clickhouse/clickhouse-connection.js";
import { ClickHouseSink } from "../../../store/clickhouse/clickhouse-sink.js";
import { ClickHouseTraceReader } from "../../../store/clickhouse/clickhouse-trace-reader.js";
import { runMigrations } from "../../../store/clickhouse/run-migrations.js";
import { migrateEmbedded, migrationsThrough } from "../../support/previous-release.js";
import { plannedCaseResult } from "../../support/stored-requests.js";
import { queryRows } from "../../support/temporary-store.js";

const PREVIOUS_RELEASE_LAST_MIGRATION = 33;
const STARTED_AT = Date.UTC(2026, 6, 8, 9, 30);
const WRITTEN_AT = Date.UTC(2026, 6, 8, 10, 0);

const embedded = (dataPath: string): ClickHouseConfig => ({ url: null, username: "default", password: "", database: "ragscope", dataPath });
const traceOf = (id: string): string => Buffer.from(id).toString("hex").padEnd(32, "0").slice(0, 32);
const request = (id: string, offsetMs: number, output: string, query: string | null): CaseResult => {
  const planned = plannedCaseResult({ caseResultId: id, traceId: traceOf(id), startedAtMs: STARTED_AT + offsetMs });
  return { ...planned, output, rag_observation: { ...planned.rag_observation, query } };
};

const FIRST_WRITE = [request("cr_umlaut", 0, "Die Rückerstattung dauert FÜNF Tage.", "Wie LANGE dauert es?"), request("cr_accent", 1_000, "Votre RÉSUMÉ est prêt.", "Où est mon résumé ?")];
const SECOND_WRITE = [request("cr_plain", 2_000, "Points are kept.", null)];

describe("upgrading a store whose trace list lower-cased its texts on every search", () => {
  let folder: string;
  let dataDir: string;
  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-lower-case-upgrade-"));
    dataDir = path.join(folder, "store");
    const previous = await migrationsThrough(PREVIOUS_RELEASE_LAST_MIGRATION, path.join(folder, "previous-migrations"));
    const connection = await openClickHouse(embedded(dataDir));
    try {
      await runMigrations(connection, previous);
      const sink = new ClickHouseSink(connection, { datasetOf: () => "", now: () => WRITTEN_AT });
      for (const write of [FIRST_WRITE, SECOND_WRITE]) {
        const written = await sink.write(write.map((caseResult) => ({ caseResult, evaluationResults: [] })));
        assert.ok(written.ok, written.ok ? "" : written.error.message);
      }
      const [columns] = await queryRows<{ present: string }>(connection, "SELECT count() AS present FROM system.columns WHERE database = '{{database}}' AND table = 'trace_list' AND name IN ('output_lower', 'query_lower')");
      assert.equal(Number(columns!.present), 0, "the earlier release's trace_list has no lower-cased copies");
      const [parts] = await queryRows<{ parts: string }>(connection, "SELECT count() AS parts FROM system.parts WHERE database = '{{database}}' AND table = 'trace_list' AND active");
      assert.ok(Number(parts!.parts) >= 2, "the stored rows are in more than one part");
    } finally {
      await connection.close();
    }
  });
  after(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  test("ragscope migrate writes the lower-cased texts into every stored part, and the list finds the earlier requests by any case", async () => {
    const migrated = migrateEmbedded(dataDir, folder);
    assert.equal(migrated.status, 0, migrated.stdout + migrated.stderr);
    assert.match(migrated.stdout, /applied 0034_trace_list_lower_case_text/);

    const read = await openClickHouse(embedded(dataDir));
    try {
      // On disk, not computed on read: every active part holds both columns.
      const parts = await queryRows<{ part: string; columns: string[] }>(
        read,
        "SELECT part.name AS part, arraySort(groupArrayIf(column.column, column.column IN ('output_lower', 'query_lower'))) AS columns FROM system.parts AS part LEFT JOIN system.parts_columns AS column ON column.database = part.database AND column.table = part.table AND column.name = part.name WHERE part.database = '{{database}}' AND part.table = 'trace_list' AND part.active GROUP BY part.name ORDER BY part.name",
      );
      assert.ok(parts.length >= 1);
      for (const part of parts) assert.deepEqual(part.columns, ["output_lower", "query_lower"], `part ${part.part}`);
      const stored = await queryRows<{ case_result_id: string; output_lower: string; query_lower: string }>(read, "SELECT case_result_id, output_lower, query_lower FROM {{database}}.trace_list ORDER BY case_result_id");
      assert.deepEqual(stored, [
        { case_result_id: "cr_accent", output_lower: "votre résumé est prêt.", query_lower: "où est mon résumé ?" },
        { case_result_id: "cr_plain", output_lower: "points are kept.", query_lower: "" },
        { case_result_id: "cr_umlaut", output_lower: "die rückerstattung dauert fünf tage.", query_lower: "wie lange dauert es?" },
      ]);

      const reader = new ClickHouseTraceReader(read);
      const found = async (text: string) => (await reader.listTraces({ text }, { after: null, limit: 10 })).traces.map((trace) => trace.caseResultId).sort();
      assert.deepEqual(await found("fünf tage"), ["cr_umlaut"]);
      assert.deepEqual(await found("FÜNF TAGE"), ["cr_umlaut"]);
      assert.deepEqual(await found("résumé"), ["cr_accent"]);
      assert.deepEqual(await found("RÉSUMÉ"), ["cr_accent"]);
      assert.deepEqual(await found("wie lange"), ["cr_umlaut"], "a query's text");
      assert.deepEqual(await found("POINTS ARE"), ["cr_plain"], "a request without a query");
      assert.deepEqual(await found("é est p"), ["cr_accent"]);
      assert.deepEqual(await found("tage. wie"), [], "an answer and a query are not one text");
    } finally {
      await read.close();
    }
  });
});
