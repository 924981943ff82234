/**
 * The read side of the UI's "Quality over time" and "Failures" pages: the
 * seed's §十二 board (retrieval, context, generation, boundaries,
 * engineering, business) and the failing cases grouped by their primary
 * root-cause label, over a time range cut into buckets. The numbers are the
 * dashboards' and the gate's own definitions (dashboards/source/
 * aggregate-metrics.ts), run with the range and the filters as query
 * parameters. Only the ClickHouse adapter implements it: the definitions are
 * ClickHouse SQL, and a second implementation would be a second definition.
 *
 * The user-behaviour metrics are the exception: their sessions and windows
 * are TypeScript (evaluators/behaviour/), so this port hands out what they
 * read of each request (not whole Case Results).
 */
import type { BehaviourRequest } from "../../evaluators/behaviour/behaviour-request.js";

export interface QualityScope {
  /** started_at at or after (epoch ms). */
  fromMs: number;
  /** started_at before (epoch ms). */
  toMs: number;
  /** Width of one time bucket, in seconds. */
  bucketSeconds: number;
  service?: string;
  runId?: string;
}

export interface QualityAggregate {
  /** The gate file's / dashboards' name, e.g. `task_success_rate`, `context_recall`. */
  name: string;
  label: string;
  /** Grafana unit id: percentunit, ms, short, none. */
  unit: string;
  /** Over the whole range; null when no request in range carried it. */
  value: number | null;
  samples: number;
  /** One value per bucket of QualityBoard.times; null where no request in the bucket carried it. */
  overTime: (number | null)[];
  /** Service → value over the range. */
  byService: Record<string, number | null>;
}

export interface QualityLayer {
  /** Retrieval, Context, Generation, Boundaries, Engineering, Business. */
  title: string;
  aggregates: QualityAggregate[];
}

export interface QualityBoard {
  /** Bucket start times (epoch ms), ascending, every bucket of the range (empty ones too). */
  times: number[];
  services: string[];
  layers: QualityLayer[];
}

export interface FailureGroup {
  /** One of the 18 root-cause labels. */
  rootCause: string;
  /** Failing requests in the range with this primary root cause: each stored request (Case Result id, trace and start), as the trace list lists them. */
  failing: number;
  /** Per bucket of FailureBoard.times. */
  overTime: number[];
}

export interface FailureBoard {
  times: number[];
  /** Requests in the range whose verdict is failed. */
  failing: number;
  /**
   * Failing requests without a root-cause label (the attribution did not run or found none), counted as `failing`
   * counts them (rows). Not `failing` minus the groups, which count a partial trace's result stored beside the complete
   * one (the same trace and start) as one request; each request of a case sent again counts in both.
   */
  withoutRootCause: number;
  /** Every one of the 18 labels, most failing first (then by name). */
  groups: FailureGroup[];
}

/** The requests a behaviour board (evaluators/behaviour/behaviour-board.ts) is computed from. */
export interface BehaviourRequests {
  /** Complete requests that started in the range, earliest first (by start, then trace id): what the behaviour metrics read of each. */
  requests: BehaviourRequest[];
  /** More requests started in the range than `limit`: only the earliest were read. */
  truncated: boolean;
}

export interface QualityReader {
  /** Services with requests in the range (the service filter left out), by name. */
  services(scope: QualityScope): Promise<string[]>;
  qualityBoard(scope: QualityScope): Promise<QualityBoard>;
  failureBoard(scope: QualityScope): Promise<FailureBoard>;
  /** The requests of the range (filters and tenants applied) for the behaviour metrics, at most `limit` of them. */
  behaviourRequests(scope: QualityScope, limit: number): Promise<BehaviourRequests>;
}

/** The bucket starts of a range: aligned to the bucket width since the epoch, as ClickHouse's toStartOfInterval aligns them. */
export function bucketTimes(scope: Pick<QualityScope, "fromMs" | "toMs" | "bucketSeconds">): number[] {
  const width = scope.bucketSeconds * 1000;
  const times: number[] = [];
  for (let time = Math.floor(scope.fromMs / width) * width; time < scope.toMs; time += width) times.push(time);
  return times;
}
