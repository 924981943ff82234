/**
 * The recorded insert bodies of the ClickHouse sink (test/data/sink-insert-bodies):
 * how its input is stored as JSON (numbers that are not finite are tagged, since
 * JSON has none), and how the insert statements, bodies and stored rows of one
 * sink write are captured. Shared by the recorder and the test, so that both
 * read the same batch and capture the same way.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { rawSpansJson } from "./raw-spans-json.js";
import type { RawSpans } from "../../contracts/raw-spans.js";
import type { CaseEvaluation } from "../../evaluators/evaluate-case-result.js";
import { tabSeparatedInsertStatement, type ClickHouseConnection } from "../../store/clickhouse/clickhouse-connection.js";

export const insertBodiesFolder = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "data", "sink-insert-bodies");
export const batchFile = path.join(insertBodiesFolder, "case-evaluations.json");
export const expectedFile = path.join(insertBodiesFolder, "insert-bodies.json");

/** The clock and dataset of the recorded write. */
export const recordedClockMs = 1_780_000_000_123;
export function recordedDatasetOf(caseId: string, caseVersion: string): string {
  return caseId.startsWith("hostile") ? `dataset\t${caseId}\\${caseVersion}\n'"\u2028` : `dataset_${caseVersion}`;
}

export interface RecordedInsert {
  query: string;
  body: string;
}

export interface RecordedInsertBodies {
  token: string;
  bodies: { metric_values: string; metric_rows: number; evaluation_results: string; trace_spans: string; case_results: string };
  /** The statements and bodies ClickHouseSink.write sent, in order. */
  inserts: RecordedInsert[];
  /** Each table's stored rows, read back as TabSeparated (inserted_at left out: the engine's clock). */
  storedRows: Record<string, string>;
}

export const storedTables = ["case_results", "evaluation_results", "metric_values", "trace_spans"] as const;

/** Raw spans are kept in the file as their JSON array's text (`json`), not as the spans' bytes the sink takes. */
export function encodeBatch(batch: readonly CaseEvaluation[]): string {
  return `${JSON.stringify(
    batch,
    (key, value: unknown) => {
      if (typeof value === "number" && !Number.isFinite(value)) return { $nonFinite: String(value) };
      if (key === "rawSpans" && value !== null && typeof value === "object") {
        const { spans, ...counts } = value as RawSpans;
        return { json: rawSpansJson({ spans, ...counts }).toString("utf8"), ...counts };
      }
      return value;
    },
    2,
  )}\n`;
}

export async function readBatch(): Promise<CaseEvaluation[]> {
  return JSON.parse(await readFile(batchFile, "utf8"), (key, value: unknown) => {
    if (value !== null && typeof value === "object" && "$nonFinite" in value) return Number((value as { $nonFinite: string }).$nonFinite);
    if (key === "rawSpans" && value !== null && typeof value === "object") {
      // The array's items as JSON.stringify wrote them: stringifying each parsed item gives its text back.
      const { json, ...counts } = value as { json: string } & Omit<RawSpans, "spans">;
      return { spans: (JSON.parse(json) as unknown[]).map((span) => Buffer.from(JSON.stringify(span), "utf8")), ...counts };
    }
    return value;
  }) as CaseEvaluation[];
}

/**
 * The connection with its TabSeparated inserts observed: each insert's
 * statement (as a server receives it) and its body are kept, then the insert
 * is made unchanged through the connection.
 */
export function observedConnection(connection: ClickHouseConnection, inserts: RecordedInsert[]): ClickHouseConnection {
  return {
    ...connection,
    insertTabSeparated: async (insert) => {
      if (insert.body.length > 0) inserts.push({ query: tabSeparatedInsertStatement(insert), body: insert.body.toString("utf8") });
      await connection.insertTabSeparated(insert);
    },
  };
}

export async function storedRows(connection: ClickHouseConnection): Promise<Record<string, string>> {
  const rows: Record<string, string> = {};
  for (const table of storedTables) {
    const result = await connection.client.query({ query: `SELECT * EXCEPT (inserted_at) FROM ${connection.database}.${table} ORDER BY ALL SETTINGS session_timezone = 'UTC'`, format: "TabSeparatedWithNames" });
    rows[table] = await result.text();
  }
  return rows;
}
