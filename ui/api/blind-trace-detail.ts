/**
 * A stored trace as the web UI and its read API may show it. A blind split's
 * gold data is never shown (seed §二.2, README "Splits"), here as in the CLI's
 * output: a blind case keeps its verdicts and scores, its Eval Case loses its
 * gold fields — the grading criteria (expected and negative behaviour, rubric)
 * with the answers and evidence: contracts/blind-gold.ts — and its Evaluation
 * Results their reasons (a judge's too) and the chunks their
 * evidence names — through the CLI's own redaction
 * (experiments/output/blind-redaction.ts), so the two cannot drift apart. A
 * reviewer's token is no exception: the developers holding UI tokens are the
 * people a blind set hides its gold from.
 */
import { isBlindCase, shownEvalCase, shownEvaluation } from "../../experiments/output/blind-redaction.js";
import type { TraceDetail } from "../../store/ports/trace-reader.js";

export function shownTraceDetail(detail: TraceDetail): TraceDetail {
  if (!isBlindCase(detail)) return detail;
  return {
    ...detail,
    evalCase: detail.evalCase === null ? null : shownEvalCase(detail.evalCase),
    evaluationResults: detail.evaluationResults.map((evaluation) => shownEvaluation(detail, evaluation)),
  };
}
