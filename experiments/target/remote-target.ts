/**
 * A collector already running (`ragscope serve`, or any deployment with the
 * read API): traces go to its OTLP/HTTP receiver (`--endpoint`), results come
 * back through its read API (`--read-api`, the address of serve's web UI):
 * `/api/traces?run=` lists a run's Case Results, `/api/traces/<id>` gives one
 * with its Evaluation Results and Eval Case.
 *
 * A case is evaluated once its Case Result is listed (the sink writes a
 * result's Evaluation Results before its Case Result). The Eval Cases must be
 * in that collector's store already (`serve --dataset FILE` or `ragscope
 * dataset push`): before any case runs the file's cases are compared with
 * them (`POST /api/cases/compare`, by the digests of their fields: the
 * collector answers with field names, never with a stored case's gold data),
 * and a case missing there or stored with other content stops the run (the
 * collector would judge it without gold data, or against gold data the user
 * did not give). The run's lineage is recorded
 * through the read API (`PUT /api/runs/<id>/lineage`, ui/api/record-run-lineage.ts)
 * and read back from it (`GET`), so the collector's store says whether the run
 * finished, as an embedded run's store does. A baseline's tenants are read
 * from `GET /api/runs/<id>/tenants` (as the token may read them: every
 * tenant's for a token of all), so a baseline several tenants' results carry
 * is refused here as on an embedded store (experiments/run-tenants.ts).
 *
 * What the API returns is checked against the contracts before it is used.
 */
import { z } from "zod";
import { caseResult as caseResultSchema } from "../../contracts/case-result.js";
import { digestCaseFields } from "../../contracts/eval-case-digest.js";
import { runLineage, type RunLineage } from "../../contracts/run-lineage.js";
import { unfinishedRunProblem } from "../run-completion.js";
import { evalCase as evalCaseSchema, type EvalCase } from "../../contracts/eval-case.js";
import { evaluationResult as evaluationResultSchema } from "../../contracts/evaluation-result.js";
import type { EvaluatedCase } from "../../evaluators/aggregate/index.js";
import { caseKey, listCases, type CollectorTarget, type MissingCases } from "./collector-target.js";

export const READ_TOKEN_VARIABLE = "RAGSCOPE_READ_API_TOKEN";
const PAGE_SIZE = 200;
const POLL_MS = 250;
/** Start times may be stored at a coarser precision than this process's clock: a second of slack. */
const START_TIME_SLACK_MS = 1000;
/** A run's listing is paged; this many pages (200 traces each) is far beyond any dataset run. */
const MAXIMUM_PAGES = 5000;

/** Cases compared a request before a run (the read API takes at most 200: ui/api/compare-eval-cases.ts). */
const CASES_COMPARED_A_REQUEST = 100;

/** The read API's answer to POST /api/cases/compare (ui/api/compare-eval-cases.ts). */
const storedComparisons = z.object({
  cases: z.array(
    z.discriminatedUnion("stored", [
      z.object({ stored: z.literal(false) }),
      z.object({ stored: z.literal(true), dataset_id: z.string(), dataset_version: z.string(), differing_fields: z.array(z.string()) }),
    ]),
  ),
});
type StoredComparison = z.infer<typeof storedComparisons>["cases"][number];

/** The read API's answer to GET /api/runs/<id>/tenants (ui/ui-app.ts): RunReader.countRunTenants. */
const runTenantCounts = z.object({ tenants: z.array(z.object({ tenant: z.string(), results: z.number().int().nonnegative() })) });

/** What stops the run, one line a problem (`problems`; the message joins them). */
export class RemoteTargetError extends Error {
  readonly problems: readonly string[];
  constructor(message: string | readonly string[]) {
    const problems = typeof message === "string" ? [message] : message;
    super(problems.join("; "));
    this.problems = problems;
  }
}

export interface RemoteTargetOptions {
  /** Base URL of the running collector's OTLP/HTTP receiver. */
  endpoint: string;
  /** Base URL of its read API (serve's web UI address). */
  readApi: string;
  /** Bearer token for the read API when it asks for one (RAGSCOPE_UI_TOKENS on the server). */
  token?: string;
  fetch?: typeof fetch;
}

function baseUrl(name: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new RemoteTargetError(`${name} "${value}" is not a URL; give a base URL such as http://127.0.0.1:4318`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new RemoteTargetError(`${name} "${value}" must be an http:// or https:// URL`);
  return value.replace(/\/+$/, "").replace(/\/v1\/traces$/, "");
}

export function remoteTarget(options: RemoteTargetOptions): CollectorTarget {
  const endpoint = baseUrl("--endpoint", options.endpoint);
  const readApi = baseUrl("--read-api", options.readApi);
  const fetchFunction = options.fetch ?? fetch;
  const headers: Record<string, string> = { Accept: "application/json", ...(options.token ? { Authorization: `Bearer ${options.token}` } : {}) };

  async function getJson(pathAndQuery: string): Promise<unknown> {
    return (await requestJson("GET", pathAndQuery)).body;
  }

  /** The answer's JSON; a status in `accepted` (besides 2xx) is returned with its body instead of thrown. */
  async function requestJson(method: "GET" | "PUT" | "POST", pathAndQuery: string, send?: unknown, accepted: readonly number[] = []): Promise<{ status: number; body: unknown }> {
    const url = `${readApi}${pathAndQuery}`;
    let response: Response;
    try {
      response = await fetchFunction(url, send === undefined ? { method, headers } : { method, headers: { ...headers, "Content-Type": "application/json" }, body: JSON.stringify(send) });
    } catch (error) {
      throw new RemoteTargetError(`the read API at ${readApi} did not answer (${(error as Error).cause instanceof Error ? ((error as Error).cause as Error).message : (error as Error).message}); give --read-api the address serve prints as "web UI and read API on ..."`);
    }
    if (response.status === 401) throw new RemoteTargetError(`the read API at ${readApi} asks for a token: set ${READ_TOKEN_VARIABLE} to a reviewer token of the server's RAGSCOPE_UI_TOKENS`);
    if (response.status === 404 && (pathAndQuery.startsWith("/api/cases") || pathAndQuery.endsWith("/lineage") || pathAndQuery.endsWith("/tenants"))) {
      throw new RemoteTargetError(`the read API at ${readApi} has no ${method} ${pathAndQuery.replace(/\?.*$/, "")}: the server is a ragscope older than this eval — upgrade it to the same version`);
    }
    if (!response.ok && !accepted.includes(response.status)) throw new RemoteTargetError(`the read API at ${readApi} answered ${response.status} to ${method} ${pathAndQuery}: ${(await response.text()).slice(0, 300)}`);
    try {
      return { status: response.status, body: await response.json() };
    } catch {
      throw new RemoteTargetError(`the read API at ${readApi} answered ${method} ${pathAndQuery} with something that is not JSON; is --read-api the address of serve's web UI?`);
    }
  }

  /**
   * Whether the collector holds each case under its id and version (as this reader may see it), and if so in
   * which fields the stored case differs from the file's and which dataset it was stored from.
   */
  async function compareCases(cases: readonly EvalCase[]): Promise<StoredComparison[]> {
    const compared: StoredComparison[] = [];
    for (let start = 0; start < cases.length; start += CASES_COMPARED_A_REQUEST) {
      const batch = cases.slice(start, start + CASES_COMPARED_A_REQUEST);
      const sent = { cases: batch.map((evalCase) => ({ case_id: evalCase.case_id, case_version: evalCase.case_version, fields: digestCaseFields(evalCase) })) };
      const parsed = storedComparisons.safeParse((await requestJson("POST", "/api/cases/compare", sent)).body);
      if (!parsed.success || parsed.data.cases.length !== batch.length) {
        const problem = parsed.success ? `${parsed.data.cases.length} answers to ${batch.length} cases` : `${parsed.error.issues[0]?.path.join(".")}: ${parsed.error.issues[0]?.message}`;
        throw new RemoteTargetError(`the read API's answer to POST /api/cases/compare does not match the contract (${problem}); are the server and this ragscope the same version?`);
      }
      compared.push(...parsed.data.cases);
    }
    return compared;
  }

  async function readLineage(runId: string): Promise<RunLineage | null> {
    const body = (await getJson(`/api/runs/${encodeURIComponent(runId)}/lineage`)) as { lineage?: unknown };
    if (body.lineage === null || body.lineage === undefined) return null;
    const parsed = runLineage.safeParse(body.lineage);
    if (!parsed.success) throw new RemoteTargetError(`the read API's lineage of run ${runId} does not match the contract (${parsed.error.issues[0]?.path.join(".")}: ${parsed.error.issues[0]?.message}); are the server and this ragscope the same version?`);
    return parsed.data;
  }

  /**
   * Case result id, case id and start time (epoch ms) of every case of the run, each once. The list has a row per
   * stored request, and a case sent again (a harness retrying it after midnight UTC, or from a renamed service) keeps
   * its result id under another request: as the store's run reader (store/clickhouse/run-current-results.ts), the
   * case counts once, at its newest request's start — `/api/traces/<id>` gives that request's rows.
   */
  async function listRun(runId: string): Promise<{ caseResultId: string; caseId: string; startedAtMs: number }[]> {
    const listed = new Map<string, { caseResultId: string; caseId: string; startedAtMs: number }>();
    let after: string | null = null;
    for (let page = 0; page < MAXIMUM_PAGES; page += 1) {
      const body = (await getJson(`/api/traces?run=${encodeURIComponent(runId)}&limit=${PAGE_SIZE}${after ? `&after=${encodeURIComponent(after)}` : ""}`)) as { traces?: unknown; next?: unknown };
      if (!Array.isArray(body.traces)) throw new RemoteTargetError(`the read API at ${readApi} answered /api/traces without a traces list; is --read-api the address of serve's web UI?`);
      for (const trace of body.traces as { caseResultId?: unknown; caseId?: unknown; startedAt?: unknown }[]) {
        if (typeof trace.caseResultId === "string" && typeof trace.caseId === "string") {
          const startedAtMs = typeof trace.startedAt === "string" ? Date.parse(trace.startedAt) : Number.NaN;
          const earlier = listed.get(trace.caseResultId);
          if (earlier === undefined || !(earlier.startedAtMs >= startedAtMs)) listed.set(trace.caseResultId, { caseResultId: trace.caseResultId, caseId: trace.caseId, startedAtMs });
        }
      }
      if (typeof body.next !== "string") return [...listed.values()];
      after = body.next;
    }
    throw new RemoteTargetError(`run ${runId}: more than ${MAXIMUM_PAGES * PAGE_SIZE} traces listed; give the run an id of its own (--run-id)`);
  }

  async function loadOne(caseResultId: string): Promise<EvaluatedCase> {
    const body = (await getJson(`/api/traces/${encodeURIComponent(caseResultId)}`)) as { caseResult?: unknown; evaluationResults?: unknown; evalCase?: unknown };
    const where = `the read API's trace ${caseResultId}`;
    const result = caseResultSchema.safeParse(body.caseResult);
    if (!result.success) throw new RemoteTargetError(`${where}: the Case Result does not match the contract (${result.error.issues[0]?.path.join(".")}: ${result.error.issues[0]?.message}); are the server and this ragscope the same version?`);
    const evaluations = evaluationResultSchema.array().safeParse(body.evaluationResults ?? []);
    if (!evaluations.success) throw new RemoteTargetError(`${where}: an Evaluation Result does not match the contract (${evaluations.error.issues[0]?.path.join(".")}: ${evaluations.error.issues[0]?.message})`);
    let evalCase: EvalCase | null = null;
    if (body.evalCase !== null && body.evalCase !== undefined) {
      const parsed = evalCaseSchema.safeParse(body.evalCase);
      if (!parsed.success) throw new RemoteTargetError(`${where}: the Eval Case does not match the contract (${parsed.error.issues[0]?.path.join(".")}: ${parsed.error.issues[0]?.message})`);
      evalCase = parsed.data;
    }
    return { caseResult: result.data, evaluationResults: evaluations.data, evalCase };
  }

  return {
    receiverUrl: endpoint,
    judgeDescription: `whatever the collector at ${endpoint} runs`,
    describe: () => `the collector at ${endpoint} (read API ${readApi})`,
    async putCases(cases, file) {
      // The running collector holds the cases (serve --dataset, dataset push); this eval compares them with the file.
      const stored = await compareCases(cases);
      const where = `the collector at ${endpoint} (read API ${readApi})`;
      const problems: string[] = [];
      cases.forEach((evalCase, index) => {
        const held = stored[index]!;
        if (!held.stored || held.differing_fields.length === 0) return;
        problems.push(
          `${file}: case ${evalCase.case_id}, case_version ${evalCase.case_version}, differs in ${held.differing_fields.join(", ")} from the case of that id and version ${where} holds (stored from dataset ${held.dataset_id} version ${held.dataset_version}): the run would be judged against that case, not this file's — a stored case is never rewritten, so give the changed case a new case_version and load it with ragscope dataset push ${file} (or restart serve with --dataset ${file})`,
        );
      });
      const missing = cases.filter((_, index) => !stored[index]!.stored).map(caseKey);
      if (missing.length > 0) {
        problems.push(
          `${file}: ${missing.length} case(s) are not stored in ${where}: ${listCases(missing)}; they would be evaluated without their gold data — load them first: ragscope dataset push ${file} --clickhouse-url <its ClickHouse server> (an embedded store is locked while serve runs: stop serve, push with --data-dir <its data dir>, start it again), or restart serve with --dataset ${file}`,
        );
      }
      if (problems.length > 0) throw new RemoteTargetError([...problems, `nothing was run: the cases ${where} holds are not this dataset's`]);
    },
    async waitForCases(runIds, cases, deadline, since) {
      const expected = new Set(cases.map((item) => item.case_id));
      const seen = new Map<string, Set<string>>(runIds.map((runId) => [runId, new Set<string>()]));
      for (;;) {
        for (const runId of runIds) {
          const found = seen.get(runId)!;
          // A request's start time comes from this process's clock (the SDK here opened its span), so it compares with `since`.
          if (found.size < expected.size) for (const trace of await listRun(runId)) if (expected.has(trace.caseId) && trace.startedAtMs >= since - START_TIME_SLACK_MS) found.add(trace.caseId);
        }
        const complete = [...seen.values()].every((found) => found.size === expected.size);
        if (complete || Date.now() >= deadline) break;
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
      const missing: MissingCases[] = [];
      for (const runId of runIds) {
        const found = seen.get(runId)!;
        const absent = cases.filter((item) => !found.has(item.case_id)).map(caseKey);
        if (absent.length > 0) missing.push({ runId, cases: absent });
      }
      return missing;
    },
    async loadRunCases(runId) {
      const listed = await listRun(runId);
      const loaded: EvaluatedCase[] = [];
      for (const trace of listed) loaded.push(await loadOne(trace.caseResultId));
      return loaded.sort((left, right) => left.caseResult.case_id.localeCompare(right.caseResult.case_id));
    },
    async storedRun(runId) {
      const [listed, lineage] = await Promise.all([listRun(runId), readLineage(runId)]);
      if (listed.length === 0 && lineage === null) return null;
      if (lineage !== null) return { cases: listed.length, since: lineage.started_at, recorded: true, unfinished: unfinishedRunProblem(runId, lineage, listed.length) };
      const newest = listed.reduce((latest, trace) => (Number.isFinite(trace.startedAtMs) ? Math.max(latest, trace.startedAtMs) : latest), Number.NEGATIVE_INFINITY);
      return { cases: listed.length, since: Number.isFinite(newest) ? new Date(newest).toISOString() : null, recorded: false, unfinished: null };
    },
    async countRunTenants(runId) {
      const parsed = runTenantCounts.safeParse(await getJson(`/api/runs/${encodeURIComponent(runId)}/tenants`));
      if (!parsed.success) throw new RemoteTargetError(`the read API's tenants of run ${runId} do not match the contract (${parsed.error.issues[0]?.path.join(".")}: ${parsed.error.issues[0]?.message}); are the server and this ragscope the same version?`);
      return parsed.data.tenants;
    },
    async recordRun(lineage) {
      // Recorded as the token's tenant, or without one for a token of every tenant (ui/api/record-run-lineage.ts);
      // 403 when the token does not say which tenant's run it is (it reads several tenants, or none).
      const answer = await requestJson("PUT", `/api/runs/${encodeURIComponent(lineage.run_id)}/lineage`, lineage, [403]);
      if (answer.status === 403) return `the read API at ${readApi} did not record it: ${String((answer.body as { error?: unknown }).error ?? "refused (403)")}`;
      return null;
    },
    async close() {},
  };
}
