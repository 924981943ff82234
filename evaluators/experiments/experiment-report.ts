/**
 * The report of one online experiment (seed §十一 在线实验): per variant the
 * traffic, every behaviour metric (evaluators/behaviour/) and every stored
 * rule or judge metric, each compared with the control — difference, interval
 * and two-sided p-value — the sample ratio check, the lineage fields that
 * differ between variants, and a decision in plain words.
 *
 * Statistics (README.md in this folder):
 * - units: requests of one user (or session) are not independent; when any
 *   unit has several observations the comparison is clustered by unit
 *   (clustered-difference.ts), otherwise a rate uses the two-proportion z
 *   test and a mean Welch's t; `method: "bootstrap"` resamples units instead;
 * - peeking: this is a fixed-horizon test. A metric is decided only once each
 *   arm holds the minimum sample for the relative change the user cares about
 *   (`minimumEffect`, at level alpha and the given power, inflated by the
 *   design effect of clustering); before that it is "not enough data",
 *   whatever its p-value. Stopping the first time p < alpha is not allowed by
 *   this rule, which is the point. One exception, so a regression is never
 *   hidden: a change in the bad direction past the Haybittle–Peto boundary
 *   (p < 0.001; Haybittle 1971, Peto et al. 1976 — the interim boundary that
 *   leaves the overall level close to alpha) is reported "worse" before the
 *   planned sample, marked as decided early. A change for the better always
 *   waits for the planned sample;
 * - a numeric metric with one value in every request of both arms (token
 *   counts of a fixed prompt) has no variance to test with: the same value
 *   is no difference, two values are a difference in every request;
 * - a heuristic metric (metric-catalog.ts, the source every surface labels
 *   "(heuristic)" from) is compared and shown, but never decides: its
 *   verdict is "not decided (heuristic)", what its numbers alone would say is
 *   kept beside it, and the decision lists it as a reason to look. A
 *   heuristic the seed defines as a rule metric (ruleInSeed) decides, as it
 *   does in the release gate;
 * - the heuristic judge's values of a judged metric (faithfulness, answer
 *   correctness, …) never decide, as in the release gate (judged-values.ts):
 *   the metric is decided on a language-model judge's values alone, saying
 *   how many of the heuristic judge's were left out; when an arm has only the
 *   heuristic judge's, the metric is a measurement that decides nothing;
 * - several metrics are tested at once without a multiple-comparison
 *   correction: a lone "better" among many metrics can be chance, and the
 *   decision text lists every metric so nobody reads one in isolation;
 * - a sample ratio mismatch (sample-ratio-mismatch.ts) makes every difference
 *   untrustworthy: the decision says so and decides nothing.
 */
import { finiteMean, LARGEST_SQUARABLE, largestMagnitude } from "../../core/finite-mean.js";
import type { CaseResult } from "../../contracts/case-result.js";
import type { ExperimentMetricValue } from "../../store/ports/experiment-reader.js";
import { isHeuristicMetric, isMetricName, METRIC_SEMANTICS } from "../metric-catalog.js";
import { judgedValues, labelOfReportedMetric, leftOutNote } from "./judged-values.js";
import { behaviourMetrics } from "../behaviour/behaviour-catalog.js";
import { carriesEvidence, noEvidenceInArm } from "../behaviour/behaviour-evidence.js";
import type { BehaviourObservation } from "../behaviour/behaviour-metric.js";
import { toBehaviourRequest, type BehaviourRequest } from "../behaviour/behaviour-request.js";
import { defaultBehaviourWindows, type BehaviourWindows } from "../behaviour/behaviour-windows.js";
import { clusterBootstrap } from "./cluster-bootstrap.js";
import { clusteredDifference } from "./clustered-difference.js";
import type { Comparison } from "./comparison.js";
import { lineageDifferences, type LineageField } from "./lineage-differences.js";
import { higherIsBetter } from "./metric-direction.js";
import { pValueText } from "./p-value-text.js";
import { separatedArmsPValue, separatedArmsSampleSize } from "./separated-arms-test.js";
import { minimumSampleSizeForMean, minimumSampleSizeForRate } from "./minimum-sample-size.js";
import { sampleRatioMismatch, type SampleRatioCheck } from "./sample-ratio-mismatch.js";
import { twoProportionTest } from "./two-proportion-test.js";
import { unitTotals, type UnitTotal } from "./unit-totals.js";
import { welchTest } from "./welch-test.js";

export type ExperimentUnit = "user" | "session";

export interface ExperimentReportOptions {
  readonly experimentId: string;
  /** The control variant; default "control" when present, else the first variant by name. */
  readonly control?: string;
  readonly unit?: ExperimentUnit;
  readonly alpha?: number;
  readonly power?: number;
  /** The relative change worth detecting (0.1 = 10 % of the control's value). */
  readonly minimumEffect?: number;
  readonly method?: "analytic" | "bootstrap";
  /** The intended split by variant (relative weights); default equal. */
  readonly weights?: Readonly<Record<string, number>>;
  readonly windows?: BehaviourWindows;
  /** Milliseconds since the epoch, for windows that have not passed yet. */
  readonly now: number;
}

export type Verdict = "better" | "worse" | "changed" | "no_difference" | "not_enough_data" | "untrustworthy" | "heuristic_not_decided";

/** What a comparison's numbers alone say, before the rule that a heuristic never decides. */
export type Indication = Exclude<Verdict, "heuristic_not_decided">;

/**
 * The boundary below which a change in the bad direction is reported before
 * the planned sample: Haybittle (1971) and Peto et al. (1976) stop a trial at
 * an interim look only at p < 0.001, which leaves the final test's level
 * nearly untouched. Applied to harm only — a regression must not wait for
 * the horizon; an improvement can.
 */
export const EARLY_HARM_P_VALUE = 0.001;

export interface VariantTraffic {
  readonly variant: string;
  readonly requests: number;
  readonly units: number;
  readonly sessions: number;
}

export interface VariantValue {
  readonly variant: string;
  readonly value: number | null;
  readonly observations: number;
  readonly units: number;
  /** Values of this arm not compared (judged-values.ts): the heuristic judge's, or a language-model judge's beside a heuristic judge measurement. */
  readonly valuesLeftOut: number;
}

export interface VariantComparison {
  readonly variant: string;
  readonly comparison: Comparison | null;
  /** Observations each arm needs before this metric is decided; null when no test sizes it (fewer than two observations, or one value in every request of both arms). */
  readonly requiredObservations: number | null;
  readonly verdict: Verdict;
  /** "worse" before the planned sample, past EARLY_HARM_P_VALUE. */
  readonly decidedEarly: boolean;
  /** For a heuristic metric, what its numbers alone say; otherwise the verdict itself. */
  readonly indication: Indication;
  /** Why there is no test (comparison null), in plain words; null when a test ran. */
  readonly note: string | null;
}

export interface MetricReport {
  readonly metric: string;
  readonly source: "behaviour" | "rule" | "judge";
  readonly kind: "rate" | "mean";
  readonly higherIsBetter: boolean | null;
  /** What to keep in mind reading it: a behaviour metric's caution, or which judge's values were left out (judged-values.ts). */
  readonly caution: string | null;
  /** A heuristic by the metric catalog: labelled "(heuristic)" wherever shown. */
  readonly heuristic: boolean;
  /** Compared on the heuristic judge's values, because an arm has no other (judged-values.ts): labelled "(heuristic judge, measurement)". */
  readonly heuristicJudge: boolean;
  /** Whether its verdict counts in the decision: false for a heuristic (unless the seed defines it as a rule metric) and for the heuristic judge's measurement. */
  readonly decides: boolean;
  readonly values: VariantValue[];
  readonly comparisons: VariantComparison[];
}

export interface ExperimentReport {
  readonly experimentId: string;
  readonly control: string;
  readonly unit: ExperimentUnit;
  readonly alpha: number;
  readonly power: number;
  readonly minimumEffect: number;
  readonly traffic: VariantTraffic[];
  readonly sampleRatio: SampleRatioCheck | null;
  /** Units seen in more than one variant: the assignment is not sticky. */
  readonly unitsInSeveralVariants: number;
  readonly metrics: MetricReport[];
  readonly lineage: LineageField[];
  readonly warnings: string[];
  /** Plain words, one line per non-control variant. */
  readonly decisions: string[];
}

interface Observation {
  readonly variant: string;
  readonly unit: string;
  readonly value: number;
}

function isRate(values: readonly number[]): boolean {
  return values.every((value) => value === 0 || value === 1);
}

function variance(values: readonly number[]): number {
  if (values.length < 2) return 0;
  const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
  return values.reduce((sum, value) => sum + (value - mean) ** 2, 0) / (values.length - 1);
}

/** The pooled within-arm variance (Cohen's d's): the spread a size can use when the control alone shows none. */
function pooledVariance(control: readonly number[], variant: readonly number[]): number {
  return ((control.length - 1) * variance(control) + (variant.length - 1) * variance(variant)) / (control.length + variant.length - 2);
}

/** A heuristic decides nothing, unless the seed defines it as a rule metric (as in the release gate, release-gate.ts). */
function decidesExperiment(metric: string): boolean {
  return !isHeuristicMetric(metric) || (isMetricName(metric) && METRIC_SEMANTICS[metric].ruleInSeed !== undefined);
}

/** How much clustering inflates the variance of the control's mean (≥ 1). */
function designEffect(units: readonly UnitTotal[], values: readonly number[]): number {
  const count = units.reduce((sum, unit) => sum + unit.count, 0);
  const naive = variance(values) / count;
  if (naive === 0) return 1;
  const ratio = units.reduce((sum, unit) => sum + unit.sum, 0) / count;
  const clustered = units.reduce((sum, unit) => sum + (unit.sum - ratio * unit.count) ** 2, 0) / count ** 2;
  return Math.max(1, clustered / naive);
}

export function buildExperimentReport(caseResults: readonly CaseResult[], metricValues: readonly ExperimentMetricValue[], options: ExperimentReportOptions): ExperimentReport {
  const unit = options.unit ?? "user";
  const alpha = options.alpha ?? 0.05;
  const power = options.power ?? 0.8;
  const minimumEffect = options.minimumEffect ?? 0.1;
  const windows = options.windows ?? defaultBehaviourWindows;
  const warnings: string[] = [];
  const inExperiment = caseResults.filter((caseResult) => caseResult.rag_observation.experiment_id === options.experimentId && caseResult.rag_observation.experiment_variant !== null);
  const requests = inExperiment.map(toBehaviourRequest);
  const variants = [...new Set(requests.map((request) => request.variant!))].sort();
  const control = options.control ?? (variants.includes("control") ? "control" : variants[0] ?? "");
  const unitOf = (item: { userId: string | null; sessionKey: string }) => (unit === "user" ? (item.userId ?? item.sessionKey) : item.sessionKey);
  if (unit === "user" && requests.some((request) => request.userId === null)) warnings.push("some requests carry no user id: each of their sessions counts as a unit of its own");

  const traffic = variants.map((variant) => {
    const own = requests.filter((request) => request.variant === variant);
    // A request without a session id is in no session (its key falls back to its own trace): counted as one, a run
    // without session ids read as one session a request.
    return { variant, requests: own.length, units: new Set(own.map(unitOf)).size, sessions: new Set(own.filter((request) => request.sessionId !== null).map((request) => request.sessionKey)).size };
  });
  const variantsOfUnit = new Map<string, Set<string>>();
  for (const request of requests) variantsOfUnit.set(unitOf(request), (variantsOfUnit.get(unitOf(request)) ?? new Set()).add(request.variant!));
  const unitsInSeveralVariants = [...variantsOfUnit.values()].filter((set) => set.size > 1).length;
  if (unitsInSeveralVariants > 0) warnings.push(`${unitsInSeveralVariants} ${unit}s saw more than one variant: the assignment is not sticky per ${unit} (assign with assignVariant on a stable ${unit} id)`);

  if (variants.length < 2 || !variants.includes(control)) {
    const reason = variants.length === 0 ? `no request of experiment "${options.experimentId}" is stored` : !variants.includes(control) ? `the control variant "${control}" has no request (variants: ${variants.join(", ")})` : `only one variant (${variants[0]}) has requests`;
    return { experimentId: options.experimentId, control, unit, alpha, power, minimumEffect, traffic, sampleRatio: null, unitsInSeveralVariants, metrics: [], lineage: [], warnings: [...warnings, reason], decisions: [`Nothing to compare: ${reason}.`] };
  }

  const weights = variants.map((variant) => options.weights?.[variant] ?? 1);
  const sampleRatio = sampleRatioMismatch(traffic.map((item) => item.units), weights);
  if (sampleRatio.mismatch) {
    warnings.push(`sample ratio mismatch: ${unit}s per variant ${traffic.map((item) => `${item.variant} ${item.units}`).join(", ")} against an intended ${weights.join(":")} split (chi-square p = ${sampleRatio.pValue.toExponential(2)} < 0.001). The assignment or the logging is broken; no difference below can be trusted.`);
  }

  const metrics: MetricReport[] = [];
  const context = { requests, windows, now: options.now };
  for (const definition of behaviourMetrics) {
    // Each arm on its own requests: whether a metric's evidence is carried at all is asked of each arm (a variant
    // whose feedback widget records nothing read 0 % liked and every session abandoned beside a control that records
    // events, and was decided worse), and a session that saw two variants counts in each what happened on its
    // requests of that variant (it was filed whole under its first request's variant).
    const withoutEvidence: string[] = [];
    const observations = variants.flatMap((variant) => {
      const own = requests.filter((request) => request.variant === variant);
      if (!carriesEvidence(own, definition.measuredFrom)) withoutEvidence.push(variant);
      return definition.observe({ ...context, requests: own }).map((item: BehaviourObservation) => ({ variant, unit: unitOf(item), value: item.value }));
    });
    const absent = { variants: new Set(withoutEvidence), why: noEvidenceInArm(definition.measuredFrom) };
    metrics.push(compareMetric(definition.id, "behaviour", definition.kind, definition.higherIsBetter, definition.caution, observations, false, new Map(), absent));
  }
  const requestByTrace = new Map<string, BehaviourRequest>(requests.map((request) => [request.traceId, request]));
  const stored = new Map<string, { source: "rule" | "judge"; observations: (Observation & { heuristicJudgement: boolean })[] }>();
  for (const item of metricValues) {
    const request = requestByTrace.get(item.traceId);
    if (request === undefined) continue;
    const entry = stored.get(item.metric) ?? { source: item.evaluatorId.startsWith("judge") ? ("judge" as const) : ("rule" as const), observations: [] };
    entry.observations.push({ variant: request.variant!, unit: unitOf(request), value: item.value, heuristicJudgement: item.heuristicJudgement });
    stored.set(item.metric, entry);
  }
  for (const [metric, entry] of [...stored.entries()].sort(([left], [right]) => left.localeCompare(right))) {
    // The heuristic judge's values never decide (judged-values.ts): the gate's rule, read by the store.
    const selection = judgedValues(entry.observations);
    const kind = isRate(selection.compared.map((item) => item.value)) ? "rate" : "mean";
    metrics.push(compareMetric(metric, entry.source, kind, higherIsBetter(metric), leftOutNote(selection), selection.compared, selection.heuristicJudge, selection.leftOut));
  }

  const lineage = lineageDifferences(inExperiment, variants);
  const differing = lineage.filter((field) => field.differs).map((field) => field.field);
  if (differing.length > 1) warnings.push(`more than one main variable differs between variants (${differing.join(", ")}): the seed's rule is one main variable per experiment, so a difference cannot be put down to one of them`);

  const decisions = variants.filter((variant) => variant !== control).map((variant) => decisionFor(variant, control, metrics, sampleRatio.mismatch));
  return { experimentId: options.experimentId, control, unit, alpha, power, minimumEffect, traffic, sampleRatio, unitsInSeveralVariants, metrics, lineage, warnings, decisions };

  function compareMetric(
    metric: string,
    source: MetricReport["source"],
    kind: "rate" | "mean",
    direction: boolean | null,
    caution: string | null,
    observations: Observation[],
    heuristicJudge = false,
    leftOut: ReadonlyMap<string, number> = new Map(),
    /** The arms with no observation of a behaviour metric because none of their requests carries its evidence, and why. */
    absent: { variants: ReadonlySet<string>; why: string } | null = null,
  ): MetricReport {
    const heuristic = isHeuristicMetric(metric);
    const decides = decidesExperiment(metric) && !heuristicJudge;
    const byVariant = new Map<string, Observation[]>(variants.map((variant) => [variant, []]));
    for (const observation of observations) byVariant.get(observation.variant)?.push(observation);
    const values = variants.map((variant) => {
      const own = byVariant.get(variant)!;
      return { variant, value: own.length === 0 ? null : finiteMean(own.map((item) => item.value)), observations: own.length, units: new Set(own.map((item) => item.unit)).size, valuesLeftOut: leftOut.get(variant) ?? 0 };
    });
    const controlObservations = byVariant.get(control)!;
    const comparisons = variants
      .filter((variant) => variant !== control)
      .map((variant): VariantComparison => {
        const variantObservations = byVariant.get(variant)!;
        const ruled = (indication: Indication, rest: Omit<VariantComparison, "variant" | "verdict" | "indication">): VariantComparison => ({
          variant,
          verdict: sampleRatio.mismatch ? "untrustworthy" : decides || indication === "not_enough_data" ? indication : "heuristic_not_decided",
          indication,
          ...rest,
        });
        const directed = (difference: number): Indication => (direction === null ? "changed" : (difference > 0) === direction ? "better" : "worse");
        if (controlObservations.length < 2 || variantObservations.length < 2) {
          // Of the two arms compared: with three variants, another arm's silence is not this comparison's reason.
          const silent = [control, variant].filter((arm) => absent?.variants.has(arm) === true);
          const note = silent.length > 0 ? `no data in ${silent.join(" and ")}: ${absent!.why}` : "fewer than two observations in an arm";
          return ruled("not_enough_data", { comparison: null, requiredObservations: null, decidedEarly: false, note });
        }
        // A stored value may be any finite cost or count (one written by other means than a trace), and a variance squares the values (1e200² is beyond the largest
        // number), which left the t test's degrees of freedom NaN and stopped the report: such a metric is not compared.
        const largest = largestMagnitude([...controlObservations, ...variantObservations].map((item) => item.value));
        if (largest > LARGEST_SQUARABLE) {
          return ruled("not_enough_data", { comparison: null, requiredObservations: null, decidedEarly: false, note: `not compared: a value of ${largest} is too large for the statistics, whose variances square the values (beyond the largest number past ${LARGEST_SQUARABLE})` });
        }
        const controlUnits = unitTotals(controlObservations);
        const variantUnits = unitTotals(variantObservations);
        const clustered = controlUnits.some((item) => item.count > 1) || variantUnits.some((item) => item.count > 1);
        const confidence = 1 - alpha;
        const controlValues = controlObservations.map((item) => item.value);
        const variantValues = variantObservations.map((item) => item.value);
        // Both arms constant (token counts of a fixed prompt): Welch's standard error and degrees of freedom are 0/0 (SciPy answers nan),
        // and no size can be computed from no spread. One value in both arms is no difference; two values are a difference in every
        // request, decided by the exact permutation test of that split (separated-arms-test.ts): two requests against two are
        // split that way by chance one time in three. Units are permuted, not requests, when a unit sent several.
        // (A rate's variance follows from its proportion, so its test and size still work at 0 or 1: it stays with them.)
        if (kind === "mean" && variance(controlValues) === 0 && variance(variantValues) === 0) {
          const [controlValue, variantValue] = [controlValues[0]!, variantValues[0]!];
          if (controlValue === variantValue) {
            return ruled("no_difference", { comparison: null, requiredObservations: null, decidedEarly: false, note: `no variance in either arm: every request is ${controlValue} in both, so no difference` });
          }
          const pValue = separatedArmsPValue(controlUnits.length, variantUnits.length);
          const counted = clustered ? `${controlUnits.length} and ${variantUnits.length} ${unit}s` : `${controlUnits.length} and ${variantUnits.length} requests`;
          const shown = `no variance in either arm: every control request is ${controlValue}, every ${variant} request ${variantValue} — a difference in every request`;
          const chance = `exact permutation test over ${counted}, ${pValueText(pValue)}`;
          if (pValue < alpha) return ruled(directed(variantValue - controlValue), { comparison: null, requiredObservations: null, decidedEarly: false, note: `${shown} (${chance})` });
          const needed = separatedArmsSampleSize(alpha);
          return ruled("not_enough_data", {
            comparison: null,
            requiredObservations: clustered ? null : needed,
            decidedEarly: false,
            note: `${shown}, but ${counted} split that way by chance too often (${chance} ≥ alpha ${alpha}): ${needed} ${clustered ? `${unit}s` : "requests"} per arm would decide it`,
          });
        }
        let comparison: Comparison;
        if (options.method === "bootstrap") comparison = clusterBootstrap(controlUnits, variantUnits, { confidence, seed: 1 });
        else if (clustered) comparison = clusteredDifference(controlUnits, variantUnits, confidence);
        else if (kind === "rate") {
          const successes = (list: Observation[]) => list.reduce((sum, item) => sum + item.value, 0);
          comparison = twoProportionTest({ successes: successes(controlObservations), count: controlObservations.length }, { successes: successes(variantObservations), count: variantObservations.length }, confidence);
        } else comparison = welchTest(controlValues, variantValues, confidence);
        const controlValue = comparison.controlValue;
        const relativeChange = controlValue !== 0 ? Math.abs(controlValue) * minimumEffect : minimumEffect;
        // A rate cannot move further than to 0 or 1: a larger change asked for is sized as the largest one possible.
        const change = kind === "rate" ? Math.min(relativeChange, Math.max(controlValue, 1 - controlValue)) : relativeChange;
        // A control with no spread of its own (always the same latency) is sized on the spread both arms show, so it can still be decided.
        const spread = variance(controlValues) > 0 ? variance(controlValues) : pooledVariance(controlValues, variantValues);
        const independent = kind === "rate" ? minimumSampleSizeForRate(controlValue, change, alpha, power) : minimumSampleSizeForMean(Math.sqrt(spread), change, alpha, power);
        const requiredObservations = Math.ceil(independent * (clustered ? designEffect(controlUnits, controlValues) : 1));
        const enough = controlObservations.length >= requiredObservations && variantObservations.length >= requiredObservations;
        const significant = comparison.pValue !== null ? comparison.pValue < alpha : comparison.lower > 0 || comparison.upper < 0;
        const harmful = direction !== null && directed(comparison.difference) === "worse";
        // The smallest p any test over these randomised units can show: an exact permutation test of a difference in
        // every unit (separated-arms-test.ts). Below it a p-value is the model's, not the data's: two users an arm whose
        // requests vary little within each gave a clustered p of 4e-37, and "worse" was decided early, where permuting
        // the four users gives 1/3 at best.
        const attainable = separatedArmsPValue(controlUnits.length, variantUnits.length);
        const unitsCounted = clustered ? `${controlUnits.length} and ${variantUnits.length} ${unit}s` : `${controlUnits.length} and ${variantUnits.length} requests`;
        if (attainable >= alpha) {
          return ruled("not_enough_data", {
            comparison,
            requiredObservations,
            decidedEarly: false,
            note: `${unitsCounted}: no test over so few can reach p < ${alpha} (an exact permutation test over them at best ${pValueText(attainable)}); with equal arms, ${separatedArmsSampleSize(alpha)} ${clustered ? `${unit}s` : "requests"} per arm are the fewest that can`,
          });
        }
        const earlyBoundary = Math.min(alpha, EARLY_HARM_P_VALUE);
        const pastEarlyBoundary = harmful && comparison.pValue !== null && comparison.pValue < earlyBoundary && attainable < earlyBoundary;
        let indication: Indication;
        if (!enough) indication = pastEarlyBoundary ? "worse" : "not_enough_data";
        else if (!significant) indication = "no_difference";
        else indication = directed(comparison.difference);
        return ruled(indication, { comparison, requiredObservations, decidedEarly: !enough && pastEarlyBoundary, note: null });
      });
    return { metric, source, kind, higherIsBetter: direction, caution, heuristic, heuristicJudge, decides, values, comparisons };
  }
}

function decisionFor(variant: string, control: string, metrics: readonly MetricReport[], mismatch: boolean): string {
  if (mismatch) return `Variant ${variant}: no decision — the sample ratio mismatch means the arms are not comparable; fix the assignment or logging and rerun the experiment.`;
  const comparisonOf = (metric: MetricReport) => metric.comparisons.find((item) => item.variant === variant);
  const named = (verdict: Verdict) => metrics.filter((metric) => comparisonOf(metric)?.verdict === verdict).map((metric) => (comparisonOf(metric)!.decidedEarly ? `${metric.metric} (early: p < ${EARLY_HARM_P_VALUE} before the planned sample)` : metric.metric));
  // A heuristic decides nothing, but a move it shows is a reason to look, and a regression must not vanish from the decision.
  // The heuristic judge's measurement is named as such: its metric's name alone would read as a language-model judge's.
  const heuristicReading = (indication: Indication) =>
    metrics.filter((metric) => comparisonOf(metric)?.verdict === "heuristic_not_decided" && comparisonOf(metric)!.indication === indication).map((metric) => (metric.heuristicJudge ? labelOfReportedMetric(metric.metric, true) : metric.metric));
  const parts: string[] = [];
  const better = named("better");
  const worse = named("worse");
  const changed = named("changed");
  const same = named("no_difference");
  const notEnough = named("not_enough_data");
  if (better.length > 0) parts.push(`better on ${better.join(", ")}`);
  if (worse.length > 0) parts.push(`worse on ${worse.join(", ")}`);
  if (changed.length > 0) parts.push(`changed (direction not judged) on ${changed.join(", ")}`);
  if (same.length > 0) parts.push(`no significant difference on ${same.join(", ")}`);
  if (notEnough.length > 0) parts.push(`not enough data on ${notEnough.join(", ")}`);
  const looks = [
    ["worse", heuristicReading("worse")],
    ["better", heuristicReading("better")],
    ["changed", heuristicReading("changed")],
    ["no difference", heuristicReading("no_difference")],
  ] as const;
  const looked = looks.filter(([, names]) => names.length > 0).map(([words, names]) => `${words} on ${names.join(", ")}`);
  if (looked.length > 0) parts.push(`heuristics, not decided (a reason to look, never a verdict): ${looked.join(", ")}`);
  return `Variant ${variant} vs ${control}: ${parts.length === 0 ? "no metric to compare" : parts.join("; ")}.`;
}
