/**
 * Where human labels are kept. The ClickHouse implementation lives with the
 * other stores (collector/judge/human-label-store.ts, table `human_labels`);
 * the in-memory one here serves the embedded mode and tests. Both keep one
 * label per label_id, the latest `labeled_at` winning.
 */
import { humanLabel, type HumanLabel } from "./human-label.js";

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

export class MemoryHumanLabelStore implements HumanLabelStore {
  private readonly labels = new Map<string, HumanLabel>();

  async save(labels: readonly HumanLabel[]): Promise<void> {
    for (const label of labels) {
      const parsed = humanLabel.parse(label);
      const previous = this.labels.get(parsed.label_id);
      if (previous === undefined || Date.parse(parsed.labeled_at) >= Date.parse(previous.labeled_at)) this.labels.set(parsed.label_id, parsed);
    }
  }

  async list(filter: HumanLabelFilter = {}): Promise<HumanLabel[]> {
    return sortLabels([...this.labels.values()].filter((label) => matchesFilter(label, filter)).map((label) => ({ ...label })));
  }
}
