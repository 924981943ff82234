/**
 * DeadLetterStore on ClickHouse: table `dead_letters` (migration 0011),
 * written as JSONEachRow through the client (no value in the SQL text), the
 * body base64 so any bytes survive.
 */
import type { DeadLetterRecord, DeadLetterStore, DeadLetterSummary } from "../ports/dead-letter-store.js";
import { quoteIdentifier, type ClickHouseConnection } from "./clickhouse-connection.js";

interface SummaryRow {
  letter_id: string;
  received_at_ms: string | number;
  code: string;
  reason: string;
  trace_id: string;
  content_type: string;
  body_bytes: string | number;
}

export class ClickHouseDeadLetterStore implements DeadLetterStore {
  private readonly table: string;

  constructor(private readonly connection: ClickHouseConnection) {
    this.table = `${quoteIdentifier(connection.database)}.dead_letters`;
  }

  async save(letter: DeadLetterRecord): Promise<void> {
    await this.connection.client.insert({
      table: this.table,
      format: "JSONEachRow",
      values: [
        {
          letter_id: letter.letterId,
          received_at: Date.parse(letter.receivedAt),
          code: letter.code,
          reason: letter.reason,
          trace_id: letter.traceId,
          content_type: letter.contentType,
          body_bytes: letter.body.byteLength,
          body_base64: Buffer.from(letter.body.buffer, letter.body.byteOffset, letter.body.byteLength).toString("base64"),
        },
      ],
    });
  }

  async list(limit: number): Promise<DeadLetterSummary[]> {
    const result = await this.connection.client.query({
      query: `SELECT letter_id, toUnixTimestamp64Milli(received_at) AS received_at_ms, code, reason, trace_id, content_type, body_bytes FROM ${this.table} ORDER BY received_at DESC, letter_id DESC LIMIT {limit:UInt32}`,
      query_params: { limit },
      format: "JSONEachRow",
    });
    return (await result.json<SummaryRow>()).map((row) => ({
      letterId: row.letter_id,
      receivedAt: new Date(Number(row.received_at_ms)).toISOString(),
      code: row.code,
      reason: row.reason,
      traceId: row.trace_id,
      contentType: row.content_type,
      bodyBytes: Number(row.body_bytes),
    }));
  }

  async body(letterId: string): Promise<Uint8Array | null> {
    const result = await this.connection.client.query({ query: `SELECT body_base64 FROM ${this.table} WHERE letter_id = {letterId:String} LIMIT 1`, query_params: { letterId }, format: "JSONEachRow" });
    const [row] = await result.json<{ body_base64: string }>();
    return row === undefined ? null : new Uint8Array(Buffer.from(row.body_base64, "base64"));
  }

  async count(): Promise<number> {
    const result = await this.connection.client.query({ query: `SELECT count() AS total FROM ${this.table}`, format: "JSONEachRow" });
    const [row] = await result.json<{ total: string | number }>();
    return Number(row?.total ?? 0);
  }
}
