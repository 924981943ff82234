/**
 * The trace list reads the newest days first and widens its time window only
 * when a window holds less than a page (clickhouse-trace-reader.ts
 * newestKeys). This pages through a store whose traces are spread over
 * several months and years — dense days, empty weeks, a lone trace years
 * older, equal start times — with Case Results written again (an identical
 * replay, and a later version with another verdict and answer), and checks
 * every page against the order computed here from what was written:
 * newest start first, the id breaking ties, one row per Case Result with its
 * latest version's fields.
 *
 * A filtered list first looks for candidates (the sorting keys of rows that
 * meet its conditions in any version) and reads only theirs when they are few;
 * the second suite holds that path to the same order, with filters that older
 * versions met and newer ones do not, and verdicts that only a review gives.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { CaseResult } from "../../../contracts/case-result.js";
import type { EvaluationResult } from "../../../contracts/evaluation-result.js";
import { ClickHouseSink } from "../../../store/clickhouse/clickhouse-sink.js";
import { ClickHouseTraceReader } from "../../../store/clickhouse/clickhouse-trace-reader.js";
import type { TraceCursor, TraceFilter, TraceSummary } from "../../../store/ports/trace-reader.js";
import type { TenantScope } from "../../../store/ports/tenant-scope.js";
import { newHumanLabel } from "../../../evaluators/judge/calibration/human-label.js";
import { buildCaseResult } from "../../support/case-results.js";
import { temporaryStore, type TemporaryStore } from "../../support/temporary-store.js";
import { rootCauseResult } from "../../support/root-cause-result.js";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const SERVICES = ["shop", "bank"];
const TENANTS = ["t1", "t2", "t3"];
const ROOT_CAUSES = ["RETRIEVAL_MISS", "HALLUCINATION"];

interface Written {
  id: string;
  startedAtMs: number;
  service: string;
  tenant: string;
  verdict: CaseResult["quality_status"];
  output: string;
  rootCause: string | null;
  recall: number;
}

/** Start times: a dense newest day, days of the past week, other months, a year back, and one trace three years older. */
function startTimes(): number[] {
  const newest = Date.parse("2026-09-14T18:30:00.000Z");
  const times: number[] = [];
  for (let index = 0; index < 40; index += 1) times.push(newest - index * 7 * 60_000);
  for (let day = 1; day <= 6; day += 1) for (let index = 0; index < 5; index += 1) times.push(newest - day * DAY - index * HOUR);
  for (const monthsBack of [1, 2, 4]) for (let index = 0; index < 6; index += 1) times.push(newest - monthsBack * 30 * DAY - index * 5 * HOUR);
  for (let index = 0; index < 4; index += 1) times.push(newest - 400 * DAY - index * DAY);
  times.push(Date.parse("2023-03-02T08:00:00.000Z"));
  // Equal start times across a day boundary of the windows: the id decides.
  times.push(newest - DAY, newest - DAY, Date.parse("2026-09-14T00:00:00.000Z"), Date.parse("2026-09-14T00:00:00.000Z"));
  return times;
}

function caseResultOf(row: Written): CaseResult {
  const base = buildCaseResult({ output: row.output, retrieved: [{ chunk_id: `${row.id}_chunk`, text: "text", score: 0.5 }] });
  const at = new Date(row.startedAtMs).toISOString();
  return {
    ...base,
    case_result_id: row.id,
    trace_id: `trace_${row.id}`,
    quality_status: row.verdict,
    started_at: at,
    completed_at: at,
    rag_observation: { ...base.rag_observation, query: `question of ${row.id}`, service_name: row.service, tenant_id: row.tenant, route: "/ask" },
  };
}

function evaluationResultsOf(row: Written): EvaluationResult[] {
  const at = new Date(row.startedAtMs).toISOString();
  const recall: EvaluationResult = { evaluation_result_id: `er_${row.id}_recall`, case_result_id: row.id, evaluator_id: "retrieval.recall", evaluator_version: "1", metric_values: { recall_at_5: row.recall }, outcome: "measured", reason: "measured", evidence_refs: [], confidence: { value: 1, semantics: "deterministic_rule" }, review_required: false, error_type: "none", evaluated_at: at };
  if (row.rootCause === null) return [recall];
  return [recall, rootCauseResult(row.id, row.rootCause, at)];
}

/**
 * Writes rows through the sink, as a collector does: `batch` rows a write, the sink's clock (which gives the rows'
 * versions) a second later after each; `later` moves it on, as a re-evaluation comes later.
 */
function writerOf(store: TemporaryStore): { write(rows: readonly Written[], batch?: number): Promise<void>; later(ms: number): void } {
  let clock = Date.parse("2026-09-15T00:00:00.000Z");
  const sink = new ClickHouseSink(store.connection, { now: () => clock });
  return {
    async write(rows, batch = rows.length) {
      for (let start = 0; start < rows.length; start += batch) {
        const written = await sink.write(rows.slice(start, start + batch).map((row) => ({ caseResult: caseResultOf(row), evaluationResults: evaluationResultsOf(row) })));
        assert.ok(written.ok);
        clock += 1_000;
      }
    },
    later(ms) {
      clock += ms;
    },
  };
}

/** The expected list, computed from the writes: newest first, then the id descending. */
function newestFirst(rows: Iterable<Written>, keep: (row: Written) => boolean): Written[] {
  return [...rows].filter(keep).sort((first, second) => second.startedAtMs - first.startedAtMs || (first.id < second.id ? 1 : first.id > second.id ? -1 : 0));
}

/** Every page of the list, following the cursor to its end. */
async function listPages(store: TemporaryStore, filter: TraceFilter, limit: number, scope: TenantScope = "all"): Promise<TraceSummary[][]> {
  const reader = new ClickHouseTraceReader(store.connection, scope);
  const all: TraceSummary[][] = [];
  let after: TraceCursor | null = null;
  do {
    const page = await reader.listTraces(filter, { after, limit });
    all.push(page.traces);
    after = page.next;
    assert.ok(all.length <= 200, "paging ends");
  } while (after !== null);
  return all;
}

/** The rows in pages of `limit`; no rows are one empty page, as the list answers. */
function chunked<Row>(rows: readonly Row[], limit: number): Row[][] {
  const chunks: Row[][] = [];
  for (let start = 0; start < rows.length; start += limit) chunks.push(rows.slice(start, start + limit));
  return chunks.length === 0 ? [[]] : chunks;
}

describe("trace list over months, with replays and later versions", () => {
  let store: TemporaryStore;
  /** What the reader must show: the last write of each Case Result. */
  const latest = new Map<string, Written>();

  before(async () => {
    store = await temporaryStore();
    const writer = writerOf(store);
    const first: Written[] = startTimes().map((startedAtMs, index) => ({
      id: `cr_${String((index * 37) % 1000).padStart(3, "0")}`,
      startedAtMs,
      service: SERVICES[index % SERVICES.length]!,
      tenant: TENANTS[index % TENANTS.length]!,
      verdict: "passed",
      output: `first answer ${index}`,
      rootCause: null,
      recall: (index % 10) / 10,
    }));
    // Several writes, so the rows are spread over parts as a collector writes them.
    await writer.write(first, 25);
    for (const row of first) latest.set(row.id, row);
    // An identical replay of a third of them (the same rows again).
    const replayed = first.filter((_, index) => index % 3 === 0);
    await writer.write(replayed);
    // A later version of every fourth: another verdict, answer, root cause and metric value (a re-evaluation a month later).
    writer.later(30 * DAY);
    const revised = first.filter((_, index) => index % 4 === 1).map((row, index): Written => ({ ...row, verdict: "failed", output: `revised answer of ${row.id}`, rootCause: ROOT_CAUSES[index % ROOT_CAUSES.length]!, recall: 0.05 }));
    await writer.write(revised);
    for (const row of revised) latest.set(row.id, row);
  });
  after(() => store.cleanup());

  const expected = (keep: (row: Written) => boolean) => newestFirst(latest.values(), keep);
  const pages = (filter: TraceFilter, limit: number, scope: TenantScope = "all") => listPages(store, filter, limit, scope);

  function assertPages(actual: TraceSummary[][], wanted: Written[], limit: number, what: string): void {
    const chunks = chunked(wanted, limit);
    assert.equal(actual.length, chunks.length, `${what}: number of pages`);
    chunks.forEach((chunk, index) => {
      assert.deepEqual(
        actual[index]!.map((trace) => ({ id: trace.caseResultId, startedAt: trace.startedAt, service: trace.serviceName, tenant: trace.tenantId, verdict: trace.qualityStatus, output: trace.output, rootCause: trace.rootCause })),
        chunk.map((row) => ({ id: row.id, startedAt: new Date(row.startedAtMs).toISOString(), service: row.service, tenant: row.tenant, verdict: row.verdict, output: row.output, rootCause: row.rootCause })),
        `${what}: page ${index + 1}`,
      );
    });
  }

  test("every page of the whole list, at several page sizes", async () => {
    assert.ok(latest.size > 90, "the store holds the written traces");
    for (const limit of [1, 7, 50, 200]) assertPages(await pages({}, limit), expected(() => true), limit, `limit ${limit}`);
  });

  test("filters that match few traces widen the window back to the oldest one", async () => {
    const oldest = expected(() => true).at(-1)!;
    assertPages(await pages({ tenant: oldest.tenant, service: oldest.service }, 5), expected((row) => row.tenant === oldest.tenant && row.service === oldest.service), 5, "tenant and service");
    assertPages(await pages({ verdict: "failed" }, 4), expected((row) => row.verdict === "failed"), 4, "verdict of the later version");
    assertPages(await pages({ rootCause: "HALLUCINATION" }, 3), expected((row) => row.rootCause === "HALLUCINATION"), 3, "root cause");
    assertPages(await pages({ metric: "recall_at_5", below: 0.1 }, 6), expected((row) => row.recall < 0.1), 6, "metric below a threshold, later versions' values");
    const aboveInService = expected((row) => row.recall > 0.5 && row.service === oldest.service && row.tenant === oldest.tenant);
    assert.ok(aboveInService.length > 0 && aboveInService.length < expected((row) => row.recall > 0.5).length, "the case selects some of the traces above the threshold");
    assertPages(await pages({ metric: "recall_at_5", above: 0.5, service: oldest.service, tenant: oldest.tenant }, 3), aboveInService, 3, "metric above a threshold with a service and tenant");
    assertPages(await pages({ text: "revised" }, 5), expected((row) => row.output.includes("revised")), 5, "free text");
    assertPages(await pages({ text: "nothing like this" }, 5), [], 5, "no match");
  });

  test("a time range and a tenant scope page like the unbounded list", async () => {
    const fromMs = Date.parse("2026-05-01T00:00:00.000Z");
    const toMs = Date.parse("2026-09-14T00:00:00.000Z");
    assertPages(await pages({ fromMs, toMs }, 8), expected((row) => row.startedAtMs >= fromMs && row.startedAtMs < toMs), 8, "time range");
    assertPages(await pages({ toMs: Date.parse("2025-12-01T00:00:00.000Z") }, 2), expected((row) => row.startedAtMs < Date.parse("2025-12-01T00:00:00.000Z")), 2, "range ending years back");
    assertPages(await pages({}, 9, ["t2"]), expected((row) => row.tenant === "t2"), 9, "tenant scope");
    const belowInScope = expected((row) => row.tenant === "t2" && row.recall < 0.1);
    assert.ok(belowInScope.length > 0 && belowInScope.length < expected((row) => row.recall < 0.1).length, "the scope admits some of the traces below the threshold");
    assertPages(await pages({ metric: "recall_at_5", below: 0.1 }, 4, ["t2"]), belowInScope, 4, "metric below a threshold in a tenant scope");
  });
});

describe("trace list of a filter that matches few traces: candidates", () => {
  let store: TemporaryStore;
  const latest = new Map<string, Written>();
  /** Final verdicts by review (agreeing reviewers), which the automatic quality_status does not carry. */
  const reviewed = new Map<string, "passed" | "failed">();

  before(async () => {
    store = await temporaryStore();
    const writer = writerOf(store);
    const newest = Date.parse("2026-09-14T20:00:00.000Z");
    // Three days of traces a quarter-hour apart, and a few a month and a year back.
    const times = [...Array.from({ length: 90 }, (_, index) => newest - index * 15 * 60_000), newest - 30 * DAY, newest - 31 * DAY, newest - 365 * DAY];
    const first: Written[] = times.map((startedAtMs, index) => ({
      id: `cr_${String(index).padStart(3, "0")}`,
      startedAtMs,
      service: SERVICES[index % SERVICES.length]!,
      tenant: TENANTS[index % TENANTS.length]!,
      verdict: index % 11 === 5 ? "failed" : "passed",
      // Rare words: "lighthouse" in a few answers, some of which a later version takes out.
      output: index % 13 === 4 ? `the lighthouse answer ${index}` : index === 7 ? String.raw`50%_off\deal, no Ünïcode trouble` : `an answer ${index}`,
      // A few low recalls and root causes, some of which a later version takes back.
      rootCause: index % 17 === 3 ? "RETRIEVAL_MISS" : null,
      recall: index % 19 === 2 ? 0.02 : 0.6,
    }));
    await writer.write(first, 20);
    for (const row of first) latest.set(row.id, row);
    // Later versions: every other "lighthouse" answer is rewritten without the word, and a failed verdict is
    // re-evaluated as passed, so their older versions meet the filters and their newest do not.
    writer.later(DAY);
    const lighthouses = first.filter((row) => row.output.includes("lighthouse"));
    const failed = first.filter((row) => row.verdict === "failed");
    const lowRecalls = first.filter((row) => row.recall < 0.1);
    const rootCaused = first.filter((row) => row.rootCause !== null);
    const revised = [
      ...lighthouses.filter((_, index) => index % 2 === 0).map((row): Written => ({ ...row, output: `a rewritten answer ${row.id}` })),
      { ...failed[0]!, verdict: "passed" as const },
      ...lowRecalls.filter((_, index) => index % 2 === 0).map((row): Written => ({ ...row, recall: 0.9 })),
      ...rootCaused.filter((_, index) => index % 2 === 0).map((row): Written => ({ ...row, rootCause: "HALLUCINATION" })),
    ];
    await writer.write(revised);
    for (const row of revised) latest.set(row.id, row);
    // Reviews, each of its case's one request (trace_<id>, both versions): agreeing reviewers fail a trace the rules passed (one of the newest day, one a year back) and pass one they failed.
    const labeledAt = "2026-09-15T12:00:00.000Z";
    const reviews: [string, "pass" | "fail"][] = [["cr_002", "fail"], [first.at(-1)!.id, "fail"], [failed[1]!.id, "pass"]];
    await store.store.humanLabels.save(
      reviews.flatMap(([id, verdict]) => ["alice", "bob"].map((reviewer) => newHumanLabel({ case_result_id: id, trace_id: `trace_${id}`, metric: "faithfulness", labeler_id: reviewer, verdict, labeled_at: labeledAt }))),
    );
    for (const [id, verdict] of reviews) reviewed.set(id, verdict === "pass" ? "passed" : "failed");
  });
  after(() => store.cleanup());

  const expected = (keep: (row: Written) => boolean) => newestFirst(latest.values(), keep);
  /** Each page's Case Result ids. */
  const ids = async (filter: TraceFilter, limit: number) => (await listPages(store, filter, limit)).map((page) => page.map((trace) => trace.caseResultId));
  /** The expected pages' ids. */
  const idPages = (rows: Written[], limit: number) => chunked(rows, limit).map((page) => page.map((row) => row.id));

  test("a word that older versions held and the newest do not", async () => {
    const wanted = expected((row) => row.output.toLowerCase().includes("lighthouse"));
    assert.ok(wanted.length >= 2 && wanted.length < [...latest.values()].length / 10, "the word is rare among the newest versions");
    for (const limit of [1, 2, 50]) assert.deepEqual(await ids({ text: "LightHouse" }, limit), idPages(wanted, limit), `limit ${limit}`);
    assert.deepEqual(await ids({ text: "lighthouse answer", service: SERVICES[0] }, 2), idPages(wanted.filter((row) => row.service === SERVICES[0]), 2), "with a service");
  });

  test("the text is a text: wildcards and backslashes match themselves, letters of any case", async () => {
    const deal = [latest.get("cr_007")!];
    assert.deepEqual(await ids({ text: String.raw`50%_OFF\Deal` }, 5), idPages(deal, 5), "the whole text");
    assert.deepEqual(await ids({ text: "ÜNÏCODE" }, 5), idPages(deal, 5), "non-ASCII letters");
    assert.deepEqual(await ids({ text: "50x_off" }, 5), [[]], "_ is not a wildcard");
    assert.deepEqual(await ids({ text: "50%xoff" }, 5), [[]], "% is not a wildcard");
    assert.deepEqual(await ids({ text: String.raw`off\d` }, 5), idPages(deal, 5), "a backslash");
    assert.deepEqual(await ids({ text: "offd" }, 5), [[]], "the backslash is not dropped");
  });

  test("a verdict that only a review gives, or a review takes away", async () => {
    const finalVerdict = (row: Written) => reviewed.get(row.id) ?? row.verdict;
    const wanted = expected((row) => finalVerdict(row) === "failed");
    assert.ok(wanted.some((row) => row.verdict !== "failed"), "a trace is failed by its review alone");
    assert.ok([...latest.values()].some((row) => row.verdict === "failed" && finalVerdict(row) === "passed"), "a review passes a trace the rules failed");
    for (const limit of [1, 3, 50]) assert.deepEqual(await ids({ verdict: "failed" }, limit), idPages(wanted, limit), `limit ${limit}`);
    // Passed: most traces, so the windows hold more candidates than a page and are read with FINAL.
    assert.deepEqual(await ids({ verdict: "passed" }, 40), idPages(expected((row) => finalVerdict(row) === "passed"), 40), "passed");
  });

  test("every combination of service, tenant, verdict and text pages as computed from the writes", async () => {
    const finalVerdict = (row: Written) => reviewed.get(row.id) ?? row.verdict;
    let compared = 0;
    for (const service of [undefined, ...SERVICES])
      for (const tenant of [undefined, TENANTS[1]!])
        for (const verdict of [undefined, "failed", "passed"] as const)
          for (const text of [undefined, "lighthouse", "answer 1"]) {
            const filter: TraceFilter = { ...(service && { service }), ...(tenant && { tenant }), ...(verdict && { verdict }), ...(text && { text }) };
            const wanted = expected(
              (row) =>
                (service === undefined || row.service === service) &&
                (tenant === undefined || row.tenant === tenant) &&
                (verdict === undefined || finalVerdict(row) === verdict) &&
                (text === undefined || row.output.toLowerCase().includes(text) || `question of ${row.id}`.includes(text)),
            );
            assert.deepEqual(await ids(filter, 4), idPages(wanted, 4), JSON.stringify(filter));
            compared += 1;
          }
    assert.equal(compared, 54);
  });

  test("a metric and a root cause that older versions had and the newest do not", async () => {
    const low = expected((row) => row.recall < 0.1);
    assert.ok(low.length >= 2 && [...latest.values()].some((row) => row.recall === 0.9), "some low recalls were raised");
    for (const limit of [1, 2, 50]) assert.deepEqual(await ids({ metric: "recall_at_5", below: 0.1 }, limit), idPages(low, limit), `recall below, limit ${limit}`);
    assert.deepEqual(await ids({ metric: "recall_at_5", below: 0.1, service: SERVICES[1] }, 2), idPages(low.filter((row) => row.service === SERVICES[1]), 2), "with a service");
    assert.deepEqual(await ids({ metric: "recall_at_5", above: 0.01, below: 0.05 }, 3), idPages(expected((row) => row.recall > 0.01 && row.recall < 0.05), 3), "between two bounds");
    assert.deepEqual(await ids({ metric: "recall_at_5", below: 0 }, 3), [[]], "below every value");
    const missed = expected((row) => row.rootCause === "RETRIEVAL_MISS");
    assert.ok(missed.length >= 1 && missed.length < [...latest.values()].filter((row) => row.rootCause !== null).length);
    for (const limit of [1, 50]) assert.deepEqual(await ids({ rootCause: "RETRIEVAL_MISS" }, limit), idPages(missed, limit), `root cause, limit ${limit}`);
    assert.deepEqual(await ids({ rootCause: "RETRIEVAL_MISS", verdict: "failed" }, 2), idPages(missed.filter((row) => (reviewed.get(row.id) ?? row.verdict) === "failed"), 2), "root cause and verdict");
  });

  test("a filter that matches nothing reads as an empty page", async () => {
    assert.deepEqual(await ids({ text: "no answer says this" }, 5), [[]]);
    assert.deepEqual(await ids({ verdict: "review_required" }, 5), [[]]);
  });
});

describe("trace list of a metric or root cause that many traces met: the key query's rows checked", () => {
  let store: TemporaryStore;
  const latest = new Map<string, Written>();

  before(async () => {
    store = await temporaryStore();
    const writer = writerOf(store);
    const newest = Date.parse("2026-09-14T20:00:00.000Z");
    // One day of traces ten minutes apart: more than a page meet each filter in every version, so the window is read
    // with FINAL and the candidate forms, and its rows' ids are checked against the newest versions.
    const first: Written[] = Array.from({ length: 60 }, (_, index) => ({
      id: `cr_${String(index).padStart(3, "0")}`,
      startedAtMs: newest - index * 10 * 60_000,
      service: SERVICES[index % SERVICES.length]!,
      tenant: TENANTS[index % TENANTS.length]!,
      verdict: "passed",
      output: `an answer ${index}`,
      rootCause: "HALLUCINATION",
      recall: 0.8,
    }));
    await writer.write(first, 20);
    for (const row of first) latest.set(row.id, row);
    // Later versions take both away from the newest twenty (the first rows the key query reads fail the check, so
    // the window is read again with the exact forms) and from every third of the others (the check drops them).
    writer.later(DAY);
    const revised = first.filter((_, index) => index < 20 || index % 3 === 0).map((row): Written => ({ ...row, recall: 0.2, rootCause: "RETRIEVAL_MISS" }));
    await writer.write(revised);
    for (const row of revised) latest.set(row.id, row);
  });
  after(() => store.cleanup());

  const ids = async (filter: TraceFilter, limit: number) => (await listPages(store, filter, limit)).map((page) => page.map((trace) => trace.caseResultId));
  const idPages = (keep: (row: Written) => boolean, limit: number) => chunked(newestFirst(latest.values(), keep), limit).map((page) => page.map((row) => row.id));

  test("a metric bound that older versions met: every page as computed from the writes", async () => {
    const above = (row: Written) => row.recall > 0.5;
    assert.ok([...latest.values()].filter(above).length > 20, "many traces keep a recall above the bound");
    for (const limit of [1, 4, 7, 50]) assert.deepEqual(await ids({ metric: "recall_at_5", above: 0.5 }, limit), idPages(above, limit), `limit ${limit}`);
    assert.deepEqual(await ids({ metric: "recall_at_5", above: 0.5, service: SERVICES[1] }, 3), idPages((row) => above(row) && row.service === SERVICES[1], 3), "with a service");
    for (const limit of [4, 50]) assert.deepEqual(await ids({ metric: "recall_at_5", below: 0.5 }, limit), idPages((row) => row.recall < 0.5, limit), `below, limit ${limit}`);
  });

  test("a root cause that older versions had: every page as computed from the writes", async () => {
    for (const limit of [1, 4, 50]) assert.deepEqual(await ids({ rootCause: "HALLUCINATION" }, limit), idPages((row) => row.rootCause === "HALLUCINATION", limit), `limit ${limit}`);
    assert.deepEqual(await ids({ rootCause: "HALLUCINATION", metric: "recall_at_5", above: 0.5 }, 5), idPages((row) => row.rootCause === "HALLUCINATION" && row.recall > 0.5, 5), "with the metric");
  });
});
