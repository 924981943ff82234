/**
 * The rollup refresh's root-cause statement alone (store/clickhouse/metric-rollups.ts rootCauseRefreshSelect:
 * dashboards/source/root-causes.ts rootCauseRollupSelect under the refresh's parameters), over stores of
 * `--requests N` (default 4,000) requests written through the real sink (embedded chDB), and how its time changes
 * with reviews:
 * - "no reviews": no human label at all (what serve's benchmark writes, and most minutes of a real store);
 * - "reviews elsewhere": 10 % of the requests of the minutes the refresh does not cover are reviewed;
 * - "reviews within": the same share of the refreshed minutes' requests too.
 * The requests lie in four minutes, two tenants × two services; the refresh recomputes the last two minutes (as
 * serve's refresh recomputes the minutes just written). Of every ten requests three failed (each with the root-cause
 * evaluator's label), one needs review, five passed, one is unjudged; one in fifty threw. A reviewed request has two
 * reviewers in turn: failing it with the same cause, failing it with different causes, failing it without a cause,
 * passing it, or one reviewer alone (rootCauseReviews).
 *
 * Figures: per store, the statement's median wall time and the median CPU of this process (the engine runs in it)
 * over `--rounds R` (default 15) runs. `--baseline FILE` (a module exporting rootCauseRollupSelect with the same
 * parameters, e.g. a scratch copy of an earlier root-causes.ts) runs that statement too, alternating with the
 * current one in each round, and checks both give the same rows.
 *
 * `npm run bench -- root-cause-rollup --requests 4000 [--baseline test/probe-tmp/root-causes-before.ts]`, the
 * baseline made from a commit's file with its imports pointed back at the tree:
 *     git show c034efd:dashboards/source/root-causes.ts | sed 's#"\.\./\.\./#"../../#; s#"\./aggregate-metrics#"../../dashboards/source/aggregate-metrics#' > test/probe-tmp/root-causes-before.ts
 *
 * Notes (issue 13, 2026-12-04, 2 cores, load 1.5–4.5 from other work; CPU is the steadier figure):
 * - Before (c034efd): the statement computed FINAL_VERDICT per row (finalVerdictOfRequests: two IN sets over the
 *   reviews, each scoped by its own set of the range's case ids), then LEFT JOINed the reviewers' causes (the reviews
 *   a third time, scoped by a third id set) and the evaluator's. Its pieces alone at 4,000 requests: the requests
 *   with that verdict 28 ms of CPU, the same requests with the automatic verdict 7 ms; the evaluator's causes 6 ms;
 *   the scoped reviews 7 ms; the whole statement ~49 ms.
 * - After: one read of the reviews (per case: agreed pass, agreed fail, agreed cause), the requests' newest row's
 *   automatic verdict and completion as one tuple, the verdict decided after the two joins. Medians, alternating:
 *     4,000 requests (15 rounds)   no reviews 46.9 → 32.8 ms of CPU, reviews elsewhere 46.2 → 32.7, within 46.3 → 33.2
 *     20,000 requests (11 rounds)  no reviews 63.1 → 45.7, reviews elsewhere 67.3 → 48.0, within 66.2 → 50.3
 *   (−24 to −30 %); the same rows in every store, and root-cause-rollup-verdicts.test.ts checks the verdict and
 *   cause rules on a labelled and an unlabelled minute of one refresh.
 * - Tried, not kept: the reviews read whole, without the set of the range's ids, cost ~29 ms against ~35 at 4,000
 *   requests, but grows with every review ever saved (what finalVerdictOfRequests' scope was added against). A
 *   separate EXISTS before the statement would need the same id set to know whether the refreshed requests have
 *   labels, so it buys nothing over the single scoped read.
 * - Serve (embedded-serve.bench.ts, 2,000 traces, alternating runs of a copy of the tree built before and after,
 *   serve CPU per span with node's defaults / the deploy image's arguments), six pairs at load 1.4–6:
 *     before  620.6 / 654.4, 641.3 / 600.6, 617.5 / 635.0, 583.8 / 598.1, 626.3 / 640.6, 659.4 / 634.4 µs
 *     after   612.5 / 651.9, 613.1 / 612.5, 646.3 / 625.0, 566.2 / 608.1, 585.0 / 611.2, 622.5 / 641.3 µs
 *   medians ~623 → ~613 and ~635 → ~619 µs: lower in 5 of 6 pairs with node's defaults, 3 of 6 with the image's,
 *   within the runs' spread. Expected: a run refreshes its one or two minutes two or three times, so ~15 ms of the
 *   engine saved a refresh is well under 1 % of the ~10 s of CPU 16,000 spans take; the statement alone cannot
 *   have made the 4–6 % measured between 648 / 620 and 686 / 643 µs, which is the size of this benchmark's spread.
 *
 * Notes (2026-12-05, aa7f52f: a failing request is a Case Result id's trace and start, so a case sent again counts
 * once per request; 2 cores shared with other work, load average 1.2 at the first run and up to 9.7 at the
 * last, so only the figures of one run compare; CPU is the steadier figure). aa7f52f^'s root-causes.ts as
 * `--baseline` (made as above), alternating, the same rows in every store (the generated requests are each sent once). Median CPU
 * of the process, before → after:
 *     4,000 requests (51 rounds, load 1.6)       no reviews 34.9 → 37.2 ms, reviews elsewhere 38.0 → 41.5, within 37.8 → 40.3
 *     20,000 requests (31 rounds, load 1.6–5.5)  no reviews 52.3 → 57.4, reviews elsewhere 56.0 → 64.0, within 59.3 → 64.7
 *     100,000 requests (15 rounds, load 5.5–9.7) no reviews 129.4 → 158.8, reviews elsewhere 133.5 → 165.3, within 186.2 → 225.3
 *   (+6–9 %, +9–14 %, +21–24 %; wall time +7–43 %, noisier). What it costs: the requests are grouped by (case_result_id,
 *   trace_id, started_at) instead of by id, so each refreshed row hashes a trace id (32 characters) and a DateTime64
 *   beside its id; the evaluator's causes grouped by and joined on the same three keys cost nothing measurable. At
 *   50,000 requests (no reviews, 21 rounds, load 3.5, a scratch script calling both selects): before 87.2 ms, after 99.1,
 *   after with the causes grouped and joined by id alone 98.5. A refresh recomputes the minutes just written (a few
 *   thousand requests at serve's rates: a few ms more a refresh), so the cost grows with a minute's requests only.
 *   Not looked for: a cheaper per-request grouping; grouping by id alone is what aa7f52f corrected (a case sent again
 *   counted once or twice by the order of refreshes), and a hash of the trace id in its place could merge two.
 */
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { EvaluationResult } from "../../contracts/evaluation-result.js";
import type { CaseResult } from "../../contracts/case-result.js";
import type { CaseEvaluation } from "../../evaluators/evaluate-case-result.js";
import { newHumanLabel, type HumanLabel } from "../../evaluators/judge/calibration/human-label.js";
import { rootCauseRollupSelect } from "../../dashboards/source/root-causes.js";
import { quoteIdentifier, type ClickHouseConnection } from "../../store/clickhouse/clickhouse-connection.js";
import { ClickHouseHumanLabelStore } from "../../store/clickhouse/clickhouse-human-label-store.js";
import { ClickHouseSink } from "../../store/clickhouse/clickhouse-sink.js";
import { FINAL_WITHIN_PARTITIONS, withStatementSettings } from "../../store/clickhouse/final-within-partitions.js";
import { refreshParameters } from "../../store/clickhouse/metric-rollups.js";
import { refreshedRequests } from "../../store/clickhouse/refreshed-requests.js";
import { buildCaseResult, judgeVerdict } from "../support/case-results.js";
import { temporaryStore, type TemporaryStore } from "../support/temporary-store.js";
import { median, wholeNumber, type BenchmarkOptions, type BenchmarkResult } from "./benchmark.js";

const DEFAULT_REQUESTS = 4_000;
const DEFAULT_ROUNDS = 15;
const BATCH = 500;
export const FIRST_MINUTE_MS = Date.parse("2026-07-08T09:30:00.000Z");
export const MINUTES = 4;
const REFRESHED_MINUTES = 2;
const TENANTS = ["tenant_a", "tenant_b"];
const SERVICES = ["shop", "bank"];
const CAUSES = ["RETRIEVAL_MISS", "HALLUCINATION", "CONTEXT_TRUNCATED"];
const REVIEWED_PERCENT = 10;

export type Placement = "no reviews" | "reviews elsewhere" | "reviews within";
type RollupSelect = (database: string, causesWhere: string, requestsWhere: string) => string;

const idOf = (index: number) => `cr_root_cause_bench_${String(index).padStart(7, "0")}`;
const minuteOf = (index: number, requests: number) => Math.floor((index * MINUTES) / requests);

/** Request `index` of `requests`: its verdict by its last digit, its minute by its place, tenant and service in turn. */
function evaluationOf(index: number, requests: number): CaseEvaluation {
  const id = idOf(index);
  const digit = index % 10;
  const quality: CaseResult["quality_status"] = digit < 3 ? "failed" : digit === 3 ? "review_required" : digit === 9 ? "unjudged" : "passed";
  const threw = index % 50 === 7;
  const started = new Date(FIRST_MINUTE_MS + minuteOf(index, requests) * 60_000 + (index % 59_000)).toISOString();
  const base = buildCaseResult({ caseId: `case_${index}`, output: threw ? null : "an answer" });
  const caseResult: CaseResult = {
    ...base,
    case_result_id: id,
    trace_id: `trace_${id}`,
    quality_status: threw ? "failed" : quality,
    execution_status: threw ? "failed" : "completed",
    execution_error: threw ? { type: "system_error", message: "the task threw" } : base.execution_error,
    started_at: started,
    rag_observation: { ...base.rag_observation, tenant_id: TENANTS[index % TENANTS.length]!, service_name: SERVICES[Math.floor(index / TENANTS.length) % SERVICES.length]! },
  };
  const evaluationResults: EvaluationResult[] = ["faithfulness", "answer_relevance", "context_precision"].map((metric) => ({ ...judgeVerdict(id, metric, quality !== "failed"), evaluated_at: started }));
  if (caseResult.quality_status === "failed") {
    evaluationResults.push({ ...judgeVerdict(id, "root", false), evaluator_id: "root_cause", metric_values: {}, reason: `${CAUSES[index % CAUSES.length]}: written by the benchmark`, confidence: { value: 1, semantics: "deterministic_rule" }, evaluated_at: started });
  }
  return { caseResult, evaluationResults };
}

/** The labels of a reviewed request (its one trace, evaluationOf), as the review form saves them: the `turn`-th of five ways two reviewers review. */
function rootCauseReviews(caseResultId: string, turn: number): HumanLabel[] {
  const labeledAt = "2026-07-08T10:00:00.000Z";
  const verdict = (labelerId: string, outcome: "pass" | "fail") => newHumanLabel({ case_result_id: caseResultId, trace_id: `trace_${caseResultId}`, metric: "faithfulness", labeler_id: labelerId, verdict: outcome, labeled_at: labeledAt });
  const cause = (labelerId: string, note: string) => newHumanLabel({ case_result_id: caseResultId, trace_id: `trace_${caseResultId}`, metric: "root_cause", labeler_id: labelerId, verdict: "fail", note, labeled_at: labeledAt });
  switch (turn % 5) {
    case 0:
      return [verdict("alice", "fail"), cause("alice", "HALLUCINATION"), verdict("bob", "fail"), cause("bob", "HALLUCINATION")];
    case 1:
      return [verdict("alice", "fail"), cause("alice", "HALLUCINATION"), verdict("bob", "fail"), cause("bob", "RETRIEVAL_MISS")];
    case 2:
      return [verdict("alice", "fail"), verdict("bob", "fail")];
    case 3:
      return [verdict("alice", "pass"), verdict("bob", "pass")];
    default:
      return [verdict("alice", "fail"), cause("alice", "CONTEXT_TRUNCATED")];
  }
}

/** A store of `requests` requests, with reviews placed as `placement` says. */
export async function writeStore(placement: Placement, requests: number, beside: TemporaryStore | undefined): Promise<TemporaryStore> {
  const store = await temporaryStore({ beside });
  const sink = new ClickHouseSink(store.connection);
  for (let start = 0; start < requests; start += BATCH) {
    const written = await sink.write(Array.from({ length: Math.min(BATCH, requests - start) }, (_, offset) => evaluationOf(start + offset, requests)));
    if (!written.ok) throw new Error(`the sink refused the benchmark's requests: ${JSON.stringify(written.error)}`);
  }
  if (placement !== "no reviews") {
    const refreshedFrom = MINUTES - REFRESHED_MINUTES;
    // Every digit's verdict alike: the first REVIEWED_PERCENT of every hundred.
    const reviewed = Array.from({ length: requests }, (_, index) => index).filter((index) => index % 100 < REVIEWED_PERCENT);
    const placed = reviewed.filter((index) => placement === "reviews within" || minuteOf(index, requests) < refreshedFrom);
    const labels = placed.flatMap((index, turn) => rootCauseReviews(idOf(index), turn));
    for (let start = 0; start < labels.length; start += BATCH) await new ClickHouseHumanLabelStore(store.connection).save(labels.slice(start, start + BATCH));
  }
  return store;
}

/** The refresh's statement from a rootCauseRollupSelect, as rootCauseRefreshSelect builds it. */
function refreshStatement(select: RollupSelect, database: string): string {
  return withStatementSettings(select(database, refreshedRequests("started_at", false), refreshedRequests("started_at")), FINAL_WITHIN_PARTITIONS);
}

/** One run of a statement: its rows (sorted, for comparison), wall and CPU milliseconds. */
async function runOnce(connection: ClickHouseConnection, statement: string, parameters: Record<string, unknown>): Promise<{ rows: string; wallMs: number; cpuMs: number }> {
  const cpu = process.cpuUsage();
  const started = process.hrtime.bigint();
  const result = await connection.client.query({ query: statement, query_params: parameters, format: "JSONEachRow" });
  const rows = await result.json<Record<string, unknown>>();
  const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
  const used = process.cpuUsage(cpu);
  return { rows: rows.map((row) => JSON.stringify(row)).sort().join("\n"), wallMs, cpuMs: (used.user + used.system) / 1000 };
}

const rounded = (value: number) => Math.round(value * 10) / 10;

export async function benchmark(options: BenchmarkOptions): Promise<BenchmarkResult> {
  const requests = wholeNumber(options, "requests", DEFAULT_REQUESTS, 10);
  const rounds = wholeNumber(options, "rounds", DEFAULT_ROUNDS, 1);
  const baselineFile = options.baseline;
  const baseline = baselineFile === undefined ? null : ((await import(pathToFileURL(path.resolve(baselineFile)).href)) as { rootCauseRollupSelect?: RollupSelect }).rootCauseRollupSelect;
  if (baseline === undefined) throw new Error(`--baseline ${baselineFile}: the module exports no rootCauseRollupSelect`);
  const minutes = Array.from({ length: REFRESHED_MINUTES }, (_, offset) => FIRST_MINUTE_MS + (MINUTES - REFRESHED_MINUTES + offset) * 60_000);
  const parameters = refreshParameters(minutes, TENANTS, SERVICES, 1);
  const figures: BenchmarkResult["figures"] = [];
  const stores: TemporaryStore[] = [];
  try {
    for (const placement of ["no reviews", "reviews elsewhere", "reviews within"] as const) {
      const store = await writeStore(placement, requests, stores[0]);
      stores.push(store);
      const database = quoteIdentifier(store.connection.database);
      const statements = { current: refreshStatement(rootCauseRollupSelect, database), ...(baseline === null ? {} : { baseline: refreshStatement(baseline, database) }) };
      const times: Record<string, { wall: number[]; cpu: number[] }> = {};
      let rowsOf: Record<string, string> = {};
      // One run of each first, untimed (the engine's caches), then the rounds alternating which runs first.
      for (let round = -1; round < rounds; round += 1) {
        const order = Object.entries(statements);
        if (round % 2 === 1) order.reverse();
        for (const [name, statement] of order) {
          const run = await runOnce(store.connection, statement, parameters);
          if (round < 0) {
            rowsOf = { ...rowsOf, [name]: run.rows };
            continue;
          }
          const entry = (times[name] ??= { wall: [], cpu: [] });
          entry.wall.push(run.wallMs);
          entry.cpu.push(run.cpuMs);
        }
      }
      figures.push({ name: `${placement}: rollup rows`, value: rowsOf.current!.split("\n").filter((line) => line !== "").length });
      for (const [name, entry] of Object.entries(times)) {
        figures.push({ name: `  ${name} statement, median wall time`, value: rounded(median(entry.wall)), unit: "ms" });
        figures.push({ name: `  ${name} statement, median CPU of the process`, value: rounded(median(entry.cpu)), unit: "ms" });
      }
      if (baseline !== null) figures.push({ name: "  same rows as the baseline", value: rowsOf.current === rowsOf.baseline ? "yes" : "NO" });
    }
  } finally {
    for (const store of stores.reverse()) await store.cleanup();
  }
  return { title: `Root-cause rollup refresh statement: ${requests.toLocaleString("en-US")} requests over ${MINUTES} minutes, the last ${REFRESHED_MINUTES} refreshed, ${rounds} rounds`, figures };
}
