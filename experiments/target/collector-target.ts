/**
 * Where an experiment sends its traces and reads its results back: the
 * collector embedded in this process (embedded-target.ts), or a collector
 * already running elsewhere — `ragscope serve` — reached by its OTLP/HTTP
 * receiver and its read API (remote-target.ts).
 */
import type { EvalCase } from "../../contracts/eval-case.js";
import type { RunLineage } from "../../contracts/run-lineage.js";
import type { EvaluatedCase } from "../../evaluators/aggregate/index.js";
import type { RunTenantCount } from "../../store/ports/run-reader.js";

export interface MissingCases {
  runId: string;
  /** `case_id@case_version` of the cases whose Case Result was not stored in time. */
  cases: string[];
}

/** What the store already holds of a run id. */
export interface StoredRun {
  /** Its Case Results the reader sees. */
  cases: number;
  /** When it was recorded (its lineage's started_at), else the start of its newest stored case; null when unknown. */
  since: string | null;
  /** True when `since` is its lineage's start, false when it is its newest case's. */
  recorded: boolean;
  /** Why the run is not whole (its eval interrupted or not ended: run-completion.ts); null when it is, or nothing says. */
  unfinished: string | null;
}

export interface CollectorTarget {
  /** Base URL of the OTLP/HTTP receiver the SDK sends to. */
  receiverUrl: string;
  /** Where the results are stored, for the report. */
  describe(): string;
  /** The judge the collector runs, as far as this process knows it. */
  judgeDescription: string;
  /**
   * Makes the Eval Cases of `file` known to the collector (the embedded one stores them); a running collector must
   * hold them already, and the run is refused (RemoteTargetError) when it holds them with other content or not at all.
   */
  putCases(cases: readonly EvalCase[], file: string): Promise<void>;
  /**
   * Waits (bounded by `deadline`, epoch ms) until every case of every run has
   * a Case Result of a request started at or after `since` (epoch ms; a run id
   * used before keeps its old rows until the new ones replace them); what is
   * still missing then.
   */
  waitForCases(runIds: readonly string[], cases: readonly EvalCase[], deadline: number, since: number): Promise<MissingCases[]>;
  /**
   * After waitForCases: what was still queued or running when its deadline
   * passed (late judge and embedding work), or null when it all finished. The
   * results loaded then lack those metrics, so the run cannot be decided on them.
   */
  unfinishedWork?(): string | null;
  loadRunCases(runId: string): Promise<EvaluatedCase[]>;
  /** What is stored under a run id (Case Results, or recorded lineage where this target reads it); null when nothing is. */
  storedRun(runId: string): Promise<StoredRun | null>;
  /**
   * How many of a run's Case Results (each case once, by its newest request) carry each tenant value, as this
   * target's reader sees them: every tenant's for the reader of all, the token's or --tenant's tenants otherwise.
   */
  countRunTenants(runId: string): Promise<RunTenantCount[]>;
  /** Stores the run's lineage; null when stored, else why it was not (the report says so). */
  recordRun(lineage: RunLineage): Promise<string | null>;
  close(): Promise<void>;
}

export const caseKey = (evalCase: { case_id: string; case_version: string }) => `${evalCase.case_id}@${evalCase.case_version}`;

/** "a@1, b@1 and 3 more": a bounded list for messages. */
export function listCases(keys: readonly string[], shown = 10): string {
  return keys.length <= shown ? keys.join(", ") : `${keys.slice(0, shown).join(", ")} and ${keys.length - shown} more`;
}
