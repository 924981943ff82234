/** HumanLabelStore in memory: one label per label_id, the latest `labeled_at` winning. */
import { humanLabel, type HumanLabel } from "../../evaluators/judge/calibration/human-label.js";
import { matchesFilter, sortLabels, type HumanLabelFilter, type HumanLabelStore } from "../ports/human-label-store.js";

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
