/**
 * CaseStore on ClickHouse. Cases are stored (`eval_cases`) when a dataset is run, so any
 * evaluator process finds them; a bounded in-memory cache keeps the lookup off
 * the hot path. A trace that names an unknown case is still evaluated (the
 * case-dependent metrics are not applicable) and counted.
 *
 * The table keeps its key (case_id, case_version) — the seed's link between a
 * case and its results — and `put` keeps a stored row as it is (the port's
 * rule): it reads the stored cases of the ids it is given, refuses the call
 * when one differs, and inserts only the cases not stored yet.
 *
 * The check and the insert are two statements, and ClickHouse has no
 * transaction to join them: two processes pushing different cases of one id
 * and version onto one ClickHouse server at the same moment can both pass the
 * check. So `put` does not trust it alone:
 * - the sorting key ends in the content's digest (migration 0030), so both
 *   rows stay, whatever merges run;
 * - after its insert, `put` reads the ids again and fails (StoredCaseConflictError,
 *   `race`) when a case of the call is stored with another content too. Of two
 *   racing pushes, the one whose insert is visible last always sees both rows
 *   when it reads back (an insert is visible once it returns), so at least one
 *   of them fails; neither can report success for a content while another
 *   content of the id and version is already visible to it. Its rows are not
 *   deleted: another push may already rely on them;
 * - readers (get, the run and trace readers: stored-case-contents.ts) treat a
 *   case stored with two contents as unknown rather than pick one, and a later
 *   `put` of it is refused, until an operator removes one content (the message
 *   gives the statement).
 * On a replicated cluster this holds when a read sees every insert that
 * returned before it (insert_quorum with select_sequential_consistency, or one
 * replica for every writer). The embedded store admits one process at a time;
 * `put` runs the same steps there.
 *
 * The per-process cache keeps a case once it was read with one content; a
 * lookup between the two inserts of a race keeps the first content in that
 * process until it restarts.
 */
import { caseContentDigest } from "../../contracts/eval-case-digest.js";
import { caseDifferences, caseIdentity, planCaseWrites } from "../../contracts/eval-case-identity.js";
import { evalCase, type EvalCase } from "../../contracts/eval-case.js";
import { StoredCaseConflictError, type CaseStore, type CaseWriteReport, type RacedCaseConflict } from "../ports/case-store.js";
import type { ClickHouseConnection } from "./clickhouse-connection.js";
import { quoteIdentifier } from "./clickhouse-connection.js";
import { contentsByCase, type StoredCaseContent } from "./stored-case-contents.js";


const key = (caseId: string, caseVersion: string) => caseIdentity({ case_id: caseId, case_version: caseVersion });
/** Case ids per lookup query: the ids travel as a query parameter, whose size a server bounds. */
const IDS_PER_QUERY = 1000;
/** Rows read for one id and version: one is the case, two or more a raced one (the few beyond bound the read). */
const CONTENTS_READ = 8;

export class ClickHouseCaseStore implements CaseStore {
  private readonly cache = new Map<string, EvalCase | null>();
  /** conflictingCases: lookups of a case stored with two contents, answered as unknown (also counted in unknownCases). */
  readonly counters = { lookups: 0, misses: 0, unknownCases: 0, conflictingCases: 0 };

  constructor(
    private readonly connection: ClickHouseConnection,
    private readonly maxCached = 50_000,
  ) {}

  async put(cases: readonly EvalCase[]): Promise<CaseWriteReport> {
    if (cases.length === 0) return { stored: new Set() };
    const caseIds = [...new Set(cases.map((item) => item.case_id))];
    const stored = await this.storedContents(caseIds);
    // Left by an earlier race: refused as the race itself was, with the way to keep one content.
    const racedBefore = this.racedConflicts(cases, stored);
    if (racedBefore.length > 0) throw new StoredCaseConflictError(racedBefore, "found");
    const plan = planCaseWrites(cases, new Map([...stored].map(([identity, contents]) => [identity, contents[0]!.evalCase])));
    if (plan.conflicts.length > 0) throw new StoredCaseConflictError(plan.conflicts);
    if (plan.toWrite.length > 0) {
      const version = Date.now();
      await this.connection.client.insert({
        table: this.table,
        values: plan.toWrite.map((item) => ({
          case_id: item.case_id,
          case_version: item.case_version,
          dataset_id: item.dataset_id,
          dataset_version: item.dataset_version,
          payload: JSON.stringify(item),
          content_digest: caseContentDigest(item),
          version,
        })),
        format: "JSONEachRow",
      });
    }
    // Another process's check may have run before this insert, and its insert after this one's check: read again.
    // Also when nothing was inserted: the stored case this call found the same may have been joined by another content.
    const after = await this.storedContents(caseIds);
    const raced = this.racedConflicts(cases, after);
    if (raced.length > 0) throw new StoredCaseConflictError(raced, "during-this-call");
    for (const [identity, contents] of after) if (contents.length === 1) this.remember(identity, contents[0]!.evalCase);
    // From the check's one read of the stored cases (above), not a read per case: the cases this call inserted.
    return { stored: new Set(plan.toWrite.map(caseIdentity)) };
  }

  private get table(): string {
    return `${quoteIdentifier(this.connection.database)}.eval_cases`;
  }

  /** The cases of the call stored with two contents, each once, against the content that is not the call's. */
  private racedConflicts(cases: readonly EvalCase[], stored: ReadonlyMap<string, StoredCaseContent[]>): RacedCaseConflict[] {
    const conflicts: RacedCaseConflict[] = [];
    const named = new Set<string>();
    for (const item of cases) {
      const identity = caseIdentity(item);
      const contents = stored.get(identity) ?? [];
      if (contents.length < 2 || named.has(identity)) continue;
      named.add(identity);
      const own = contents.find((content) => caseDifferences(content.evalCase, item).length === 0);
      const other = contents.find((content) => content !== own)!;
      conflicts.push({
        caseId: item.case_id,
        caseVersion: item.case_version,
        datasetId: item.dataset_id,
        datasetVersion: item.dataset_version,
        storedDatasetId: other.evalCase.dataset_id,
        storedDatasetVersion: other.evalCase.dataset_version,
        fields: caseDifferences(other.evalCase, item),
        contentDigest: own?.storedDigest ?? caseContentDigest(item),
        otherContentDigest: other.storedDigest,
        table: this.table,
      });
    }
    return conflicts;
  }

  /**
   * The stored contents of these ids, by identity, read from the table (not the cache: another process may have
   * stored them). A stored row that no longer reads as an Eval Case is left out: get() cannot return it either.
   */
  private async storedContents(caseIds: readonly string[]): Promise<Map<string, StoredCaseContent[]>> {
    const rows: StoredCaseContent[] = [];
    for (let start = 0; start < caseIds.length; start += IDS_PER_QUERY) {
      const result = await this.connection.client.query({
        query: `SELECT payload, content_digest FROM ${this.table} FINAL WHERE case_id IN {caseIds:Array(String)}`,
        query_params: { caseIds: caseIds.slice(start, start + IDS_PER_QUERY) },
        format: "JSONEachRow",
      });
      for (const row of await result.json<{ payload: string; content_digest: string }>()) {
        const parsed = evalCase.safeParse(JSON.parse(row.payload));
        if (parsed.success) rows.push({ evalCase: parsed.data, storedDigest: row.content_digest });
      }
    }
    return contentsByCase(rows);
  }

  async get(caseId: string, caseVersion: string): Promise<EvalCase | null> {
    if (caseId === "") return null;
    this.counters.lookups += 1;
    const cacheKey = key(caseId, caseVersion);
    if (this.cache.has(cacheKey)) return this.cache.get(cacheKey) ?? null;
    this.counters.misses += 1;
    // One row per content (the sorting key ends in its digest); a few more than one tell a raced case.
    const result = await this.connection.client.query({
      query: `SELECT payload FROM ${this.table} FINAL WHERE case_id = {caseId:String} AND case_version = {caseVersion:String} LIMIT ${CONTENTS_READ}`,
      query_params: { caseId, caseVersion },
      format: "JSONEachRow",
    });
    const rows: StoredCaseContent[] = [];
    for (const row of await result.json<{ payload: string }>()) {
      const parsed = evalCase.safeParse(JSON.parse(row.payload));
      if (parsed.success) rows.push({ evalCase: parsed.data, storedDigest: "" });
    }
    const contents = contentsByCase(rows).get(key(caseId, caseVersion)) ?? [];
    // Stored with two contents (two pushes raced): nobody chose either, so the case is unknown, not one of them.
    if (contents.length > 1) this.counters.conflictingCases += 1;
    const found = contents.length === 1 ? contents[0]!.evalCase : null;
    if (!found) this.counters.unknownCases += 1;
    // Unknown cases are not cached: the dataset may be loaded a moment later.
    if (found) this.remember(cacheKey, found);
    return found;
  }

  /** A case stored with two contents (a race) comes with both: a caller withholding a split's gold withholds either. */
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
