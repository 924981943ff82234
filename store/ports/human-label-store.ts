/**
 * Where human labels are kept (ClickHouse: table `human_labels`; in memory:
 * store/memory). Both keep one label per label_id, the latest `labeled_at`
 * winning. Each label names the request it reviews (trace_id), or none ("", a
 * label whose reviewer went on to review another request of its case, or one
 * stored before labels named their request that no request was found for).
 */
import type { HumanLabel } from "../../evaluators/judge/calibration/human-label.js";

export interface HumanLabelFilter {
  metric?: string;
  labelerId?: string;
  caseResultIds?: readonly string[];
}

export interface HumanLabelStore {
  save(labels: readonly HumanLabel[]): Promise<void>;
  list(filter?: HumanLabelFilter): Promise<HumanLabel[]>;
}

export function matchesFilter(label: HumanLabel, filter: HumanLabelFilter): boolean {
  if (filter.metric !== undefined && label.metric !== filter.metric) return false;
  if (filter.labelerId !== undefined && label.labeler_id !== filter.labelerId) return false;
  if (filter.caseResultIds !== undefined && !filter.caseResultIds.includes(label.case_result_id)) return false;
  return true;
}

/** A request's key, of its Case Result id and trace id: a label counts toward the review of the request it names. */
export function requestKey(request: { case_result_id: string; trace_id: string }): string {
  return `${request.case_result_id}\u0000${request.trace_id}`;
}

/** Labels sorted by case result, metric, labeler: a stable order for reports. */
export function sortLabels(labels: HumanLabel[]): HumanLabel[] {
  const key = (label: HumanLabel) => `${label.case_result_id}\u0000${label.metric}\u0000${label.labeler_id}`;
  return labels.sort((first, second) => (key(first) < key(second) ? -1 : key(first) > key(second) ? 1 : 0));
}
