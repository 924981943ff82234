/** What root-cause attribution concludes about one failed case. */
import type { PrimaryCause } from "./root-cause-labels.js";
import type { MetricName } from "../metric-catalog.js";

export interface RootCauseEvidence {
  /** Chunks that decided the label (the leaked, expired, missed, dropped … chunk). */
  chunkIds: string[];
  /** Metric values that decided it, by metric name, as stored in the Evaluation Results. */
  metricValues: Record<string, number>;
  /** The Evaluation Results those metric values come from. */
  evaluationResultIds: string[];
}

export interface RootCauseAttribution {
  /** A label, or UNATTRIBUTED when no step found a cause. */
  label: PrimaryCause;
  /** Which step of the procedure decided, and on what, in a sentence a reviewer can check. */
  reason: string;
  evidence: RootCauseEvidence;
  /** deterministic_rule: decided by ids, ranks and flags; heuristic: by text overlap or a heuristic metric. */
  confidence: "deterministic_rule" | "heuristic";
}

/** What one step of the procedure found; the procedure turns it into an attribution. */
export interface RootCauseFinding {
  reason: string;
  chunkIds?: readonly string[];
  /** Names of the metrics whose stored values back the finding. */
  metrics?: readonly MetricName[];
  confidence: "deterministic_rule" | "heuristic";
}
