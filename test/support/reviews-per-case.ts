/**
 * This release's SQL reading reviews, as a release before migration 0037 ran it: a human label belonged to its Case
 * Result id, not to a request (human_labels had no trace_id), so its reviews were grouped and matched per case. The
 * upgrade tests compute an earlier store's numbers with the statements of the release they upgrade from; on a store
 * of that release this release's statements fail (its human_labels has no trace_id column). For a case with one
 * request both rules give the same verdict and cause.
 *
 * Each rewrite undoes one place where this release added the trace id (dashboards/source/aggregate-metrics.ts
 * reviewedAs, root-causes.ts caseReviews and attributedRootCauses); a statement none applies to holds no review, and is
 * refused, so a change of those statements is noticed here rather than compared against the wrong rule.
 */
import type { ClickHouseConnection } from "../../store/clickhouse/clickhouse-connection.js";

const REWRITES: [RegExp, string][] = [
  // reviewedAs: the (case, trace) pair matched by the reviewers' agreement.
  [/\(case_result_id, trace_id\) IN \(SELECT case_result_id, trace_id FROM/g, "case_result_id IN (SELECT case_result_id FROM"],
  // Both: one row per reviewer of a request, then per request.
  [/SELECT case_result_id, trace_id, labeler_id,/g, "SELECT case_result_id, labeler_id,"],
  [/GROUP BY case_result_id, trace_id, labeler_id\)/g, "GROUP BY case_result_id, labeler_id)"],
  [/GROUP BY case_result_id, trace_id HAVING/g, "GROUP BY case_result_id HAVING"],
  // caseReviews: its columns and its outer grouping (the statement ends in the join's parenthesis).
  [/SELECT case_result_id, trace_id,(\s+)countIf\(labelled\)/g, "SELECT case_result_id,$1countIf(labelled)"],
  [/GROUP BY case_result_id, trace_id\) AS (reviews|reviewed) ON/g, "GROUP BY case_result_id) AS $1 ON"],
  // attributedRootCauses and the Failures board: the reviews joined to the request by both ids.
  [/ AND (reviews|reviewed)\.trace_id = (requests|failing)\.\w+/g, ""],
];

function rewritten(statement: string): string {
  let result = statement;
  for (const [pattern, replacement] of REWRITES) result = result.replace(pattern, replacement);
  return result;
}

export function reviewsPerCase(statement: string): string {
  const result = rewritten(statement);
  if (result === statement) throw new Error("reviewsPerCase: the statement reads no reviews this release's way");
  return result;
}

/**
 * `connection` as an earlier release's code used it: while the store's human_labels has no trace_id column (its
 * migrations stop before 0037), every statement its client runs (query, command) that reads the reviews this
 * release's way reads them per case, as that release did; once migrated, statements run as they are. For this
 * release's readers and rollup refresh run as an earlier release's on its store (the layouts of
 * test/integration/dashboards/dashboard-dataset.ts, metric-rollups.ts options such as notJudgedCount: false): this
 * release's statements cannot be read there.
 */
export function connectionReadingReviewsPerCase(connection: ClickHouseConnection): ClickHouseConnection {
  let labelsNameRequests = false;
  const asStoreReads = async (query: (statement: string) => Promise<unknown>, statement: string): Promise<unknown> => {
    const perCase = rewritten(statement);
    if (perCase === statement || labelsNameRequests) return query(statement);
    const result = await connection.client.query({
      query: "SELECT count() AS present FROM system.columns WHERE database = {database:String} AND table = 'human_labels' AND name = 'trace_id'",
      query_params: { database: connection.database },
      format: "JSONEachRow",
    });
    labelsNameRequests = Number((await result.json<{ present: string }>())[0]?.present ?? 0) > 0;
    return query(labelsNameRequests ? statement : perCase);
  };
  const client = new Proxy(connection.client, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      if (property !== "query" && property !== "command") return value.bind(target);
      return (parameters: { query: string }) => asStoreReads((query) => value.call(target, { ...parameters, query }) as Promise<unknown>, parameters.query);
    },
  });
  return new Proxy(connection, {
    get(target, property) {
      if (property === "client") return client;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
