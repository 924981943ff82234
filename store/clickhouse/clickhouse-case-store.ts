/**
 * CaseStore on ClickHouse. Cases are stored (`eval_cases`) when a dataset is run, so any
 * evaluator process finds them; a bounded in-memory cache keeps the lookup off
 * the hot path. A trace that names an unknown case is still evaluated (the
 * case-dependent metrics are not applicable) and counted.
 *
 * The table keeps its key (case_id, case_version) — the seed's link between a
 * case and its results — and `put` keeps a stored row as it is (the port's
 * rule): it reads the stored cases of the ids it is given, refuses the call
 * when one differs, and inserts only the cases not stored yet. The check and
 * the insert are two statements: two processes pushing different cases of one
 * id and version at the same moment onto one ClickHouse server could both
 * pass it (the embedded store admits one process at a time).
 */
import { caseIdentity, planCaseWrites } from "../../contracts/eval-case-identity.js";
import { evalCase, type EvalCase } from "../../contracts/eval-case.js";
import { StoredCaseConflictError, type CaseStore } from "../ports/case-store.js";
import type { ClickHouseConnection } from "./clickhouse-connection.js";
import { quoteIdentifier } from "./clickhouse-connection.js";


const key = (caseId: string, caseVersion: string) => caseIdentity({ case_id: caseId, case_version: caseVersion });
/** Case ids per lookup query: the ids travel as a query parameter, whose size a server bounds. */
const IDS_PER_QUERY = 1000;

export class ClickHouseCaseStore implements CaseStore {
  private readonly cache = new Map<string, EvalCase | null>();
  readonly counters = { lookups: 0, misses: 0, unknownCases: 0 };

  constructor(
    private readonly connection: ClickHouseConnection,
    private readonly maxCached = 50_000,
  ) {}

  async put(cases: readonly EvalCase[]): Promise<void> {
    if (cases.length === 0) return;
    const stored = await this.storedCases([...new Set(cases.map((item) => item.case_id))]);
    const plan = planCaseWrites(cases, stored);
    if (plan.conflicts.length > 0) throw new StoredCaseConflictError(plan.conflicts);
    for (const item of stored.values()) this.remember(caseIdentity(item), item);
    if (plan.toWrite.length === 0) return;
    const version = Date.now();
    await this.connection.client.insert({
      table: `${quoteIdentifier(this.connection.database)}.eval_cases`,
      values: plan.toWrite.map((item) => ({
        case_id: item.case_id,
        case_version: item.case_version,
        dataset_id: item.dataset_id,
        dataset_version: item.dataset_version,
        payload: JSON.stringify(item),
        version,
      })),
      format: "JSONEachRow",
    });
    for (const item of plan.toWrite) this.remember(caseIdentity(item), item);
  }

  /**
   * The stored cases of these ids, by identity, read from the table (not the cache: another process may have
   * stored them). A stored row that no longer reads as an Eval Case is left out: get() cannot return it either.
   */
  private async storedCases(caseIds: readonly string[]): Promise<Map<string, EvalCase>> {
    const found = new Map<string, EvalCase>();
    for (let start = 0; start < caseIds.length; start += IDS_PER_QUERY) {
      const result = await this.connection.client.query({
        query: `SELECT payload FROM ${quoteIdentifier(this.connection.database)}.eval_cases FINAL WHERE case_id IN {caseIds:Array(String)}`,
        query_params: { caseIds: caseIds.slice(start, start + IDS_PER_QUERY) },
        format: "JSONEachRow",
      });
      for (const row of await result.json<{ payload: string }>()) {
        const parsed = evalCase.safeParse(JSON.parse(row.payload));
        if (parsed.success) found.set(caseIdentity(parsed.data), parsed.data);
      }
    }
    return found;
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
