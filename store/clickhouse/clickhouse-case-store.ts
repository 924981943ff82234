/**
 * CaseStore on ClickHouse. Cases are stored (`eval_cases`) when a dataset is run, so any
 * evaluator process finds them; a bounded in-memory cache keeps the lookup off
 * the hot path. A trace that names an unknown case is still evaluated (the
 * case-dependent metrics are not applicable) and counted.
 */
import { evalCase, type EvalCase } from "../../contracts/eval-case.js";
import type { CaseStore } from "../ports/case-store.js";
import type { ClickHouseConnection } from "./clickhouse-connection.js";
import { quoteIdentifier } from "./clickhouse-connection.js";


const key = (caseId: string, caseVersion: string) => `${caseId}\u0000${caseVersion}`;

export class ClickHouseCaseStore implements CaseStore {
  private readonly cache = new Map<string, EvalCase | null>();
  readonly counters = { lookups: 0, misses: 0, unknownCases: 0 };

  constructor(
    private readonly connection: ClickHouseConnection,
    private readonly maxCached = 50_000,
  ) {}

  async put(cases: readonly EvalCase[]): Promise<void> {
    if (cases.length === 0) return;
    const version = Date.now();
    await this.connection.client.insert({
      table: `${quoteIdentifier(this.connection.database)}.eval_cases`,
      values: cases.map((item) => ({
        case_id: item.case_id,
        case_version: item.case_version,
        dataset_id: item.dataset_id,
        dataset_version: item.dataset_version,
        payload: JSON.stringify(item),
        version,
      })),
      format: "JSONEachRow",
    });
    for (const item of cases) this.remember(key(item.case_id, item.case_version), item);
  }

  async get(caseId: string, caseVersion: string): Promise<EvalCase | null> {
    if (caseId === "") return null;
    this.counters.lookups += 1;
    const cacheKey = key(caseId, caseVersion);
    if (this.cache.has(cacheKey)) return this.cache.get(cacheKey) ?? null;
    this.counters.misses += 1;
    const result = await this.connection.client.query({
      query: `SELECT payload FROM ${quoteIdentifier(this.connection.database)}.eval_cases FINAL WHERE case_id = {caseId:String} AND case_version = {caseVersion:String} LIMIT 1`,
      query_params: { caseId, caseVersion },
      format: "JSONEachRow",
    });
    const rows = await result.json<{ payload: string }>();
    const row = rows[0];
    const parsed = row ? evalCase.safeParse(JSON.parse(row.payload)) : null;
    const found = parsed?.success ? parsed.data : null;
    if (!found) this.counters.unknownCases += 1;
    // Unknown cases are not cached: the dataset may be loaded a moment later.
    if (found) this.remember(cacheKey, found);
    return found;
  }

  async listSplit(split: string, limit: number): Promise<EvalCase[]> {
    // The split as dataset-mix.ts reads it: metadata.split when it is a non-blank text, else metadata.dataset_role.
    const field = (name: string) => `lower(trimBoth(JSONExtractString(payload, 'metadata', '${name}')))`;
    const result = await this.connection.client.query({
      query: `SELECT payload FROM ${quoteIdentifier(this.connection.database)}.eval_cases FINAL WHERE if(${field("split")} != '', ${field("split")}, ${field("dataset_role")}) = {split:String} ORDER BY case_id, case_version LIMIT {limit:UInt32}`,
      query_params: { split: split.trim().toLowerCase(), limit },
      format: "JSONEachRow",
    });
    const rows = await result.json<{ payload: string }>();
    return rows.flatMap((row) => {
      const parsed = evalCase.safeParse(JSON.parse(row.payload));
      return parsed.success ? [parsed.data] : [];
    });
  }

  private remember(cacheKey: string, value: EvalCase): void {
    this.cache.set(cacheKey, value);
    if (this.cache.size > this.maxCached) {
      const oldest = this.cache.keys().next().value;
      if (oldest !== undefined) this.cache.delete(oldest);
    }
  }
}
