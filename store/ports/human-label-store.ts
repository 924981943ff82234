/**
 * Where human labels are kept (ClickHouse: table `human_labels`; in memory:
 * store/memory). Both keep one label per label_id, the latest `labeled_at`
 * winning.
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

/** Labels sorted by case result, metric, labeler: a stable order for reports. */
export function sortLabels(labels: HumanLabel[]): HumanLabel[] {
  const key = (label: HumanLabel) => `${label.case_result_id}\u0000${label.metric}\u0000${label.labeler_id}`;
  return labels.sort((first, second) => (key(first) < key(second) ? -1 : key(first) > key(second) ? 1 : 0));
}
