/**
 * The release gate's refusal rates (seed 004 §六 边界能力: 正确拒答率, 错误拒答率),
 * with the boards' definitions (dashboards/source/aggregate-metrics.ts):
 *   correct_refusal_rate = refusals of unanswerable cases / refusals
 *                          (Abstention Precision, answer-abstention-confusion.ts)
 *   false_refusal_rate   = refusals of answerable cases / answerable cases
 * over the cases linked to an Eval Case whose abstention was recorded.
 *
 * These values decide, and a heuristic never decides a pass, so as for
 * no_answer_accuracy (no-answer-accuracy.ts) a refusal counts in the rate's
 * favour only when read exactly: the trace flags it (ragscope.answer.abstained)
 * or the answer refuses in whole. Every other reading is a heuristic's — a
 * refusal phrase beside claims of the answer's own, or no refusal phrase found
 * (a refusal in words the phrase list lacks escapes it) — and is put where it
 * can only understate quality:
 * - correct_refusal_rate (higher is better) is a lower bound: a heuristic
 *   refusal of an unanswerable case is not counted as a correct refusal (in
 *   neither count: credited, it would raise the rate), and an answerable case
 *   read only heuristically, refusing or not, counts as a false refusal (in the
 *   refusals, not the correct ones: it may be one, and would lower the rate).
 * - false_refusal_rate (lower is better) is an upper bound: an answerable case
 *   read only heuristically, refusing or not, counts as a false refusal.
 * A heuristic "did not refuse" of an unanswerable case stays out of both rates'
 * refusals: counting it could only raise correct_refusal_rate.
 * The note says how many readings were so placed and how to have them read
 * exactly, and `bestCase` is the rate with each of them read in its favour: a
 * gate fails on the bound only when the best case fails too; a bound that misses
 * only for its heuristic readings is not measured (release-gate.ts), so an app
 * that flags no abstention is not failed on answers read as possible refusals.
 * The boards show the measurement itself, every stored reading as read.
 */
import { applicable, notApplicable, type MetricValue } from "../metric-value.js";
import { ABSTENTION_READ_EXACTLY } from "../rules/answer-abstention.js";
import type { EvaluatedCase } from "./evaluated-case.js";
import { abstentionReadingOf } from "./no-answer-accuracy.js";

export interface RefusalRate {
  value: MetricValue;
  /** Says how many heuristic readings were placed against quality and how to read them exactly; null when none were. */
  note: string | null;
  /**
   * With heuristic readings placed against quality (a note): the rate were each of them read in its favour instead
   * (a heuristic refusal of an unanswerable case a correct one, an answerable case read only heuristically an
   * answer); null when that reading has no case to count. Absent when no reading was placed.
   */
  bestCase?: number | null;
}

/** Counts of the linked cases with a recorded abstention, by whether the case is answerable and how the answer was read. */
interface RefusalTally {
  linkedCases: number;
  unanswerable: { cases: number; exactRefusals: number; heuristicRefusals: number };
  answerable: { cases: number; exactRefusals: number; exactAnswers: number; heuristicRefusals: number; heuristicAnswers: number };
  /** Linked cases that recorded neither an abstention flag nor an answer. */
  unread: number;
}

function tallyOf(cases: readonly EvaluatedCase[]): RefusalTally {
  const tally: RefusalTally = {
    linkedCases: 0,
    unanswerable: { cases: 0, exactRefusals: 0, heuristicRefusals: 0 },
    answerable: { cases: 0, exactRefusals: 0, exactAnswers: 0, heuristicRefusals: 0, heuristicAnswers: 0 },
    unread: 0,
  };
  for (const evaluated of cases) {
    const evalCase = evaluated.evalCase;
    if (evalCase === null || evalCase === undefined) continue;
    tally.linkedCases += 1;
    const reading = abstentionReadingOf(evaluated);
    if (reading === null) {
      tally.unread += 1;
      continue;
    }
    if (evalCase.answerable === false) {
      tally.unanswerable.cases += 1;
      if (reading.abstained) tally.unanswerable[reading.exact ? "exactRefusals" : "heuristicRefusals"] += 1;
    } else {
      tally.answerable.cases += 1;
      if (reading.abstained) tally.answerable[reading.exact ? "exactRefusals" : "heuristicRefusals"] += 1;
      else tally.answerable[reading.exact ? "exactAnswers" : "heuristicAnswers"] += 1;
    }
  }
  return tally;
}

/** Why no case was linked or read, when that is why a rate has no case; null otherwise. */
function missingCasesReason(cases: readonly EvaluatedCase[], tally: RefusalTally): string | null {
  if (cases.length === 0) return "the run has no case";
  if (tally.linkedCases === 0) return "no case is linked to an Eval Case, so none is known to be answerable or not";
  if (tally.unanswerable.cases + tally.answerable.cases === 0) return `none of its ${tally.linkedCases} case(s) recorded whether it abstained (no abstention flag and no answer)`;
  return null;
}

/** The answerable cases read only by a heuristic, counted as false refusals: how many, of which kind. */
function heuristicAnswerablePhrase(tally: RefusalTally, ofAll: boolean): string {
  const { heuristicRefusals, heuristicAnswers } = tally.answerable;
  const kinds = [
    heuristicRefusals > 0 ? `${heuristicRefusals} with a refusal phrase beside claims of the answer's own` : null,
    heuristicAnswers > 0 ? `${heuristicAnswers} with no refusal phrase found, which a refusal in other words would escape` : null,
  ].filter((kind): kind is string => kind !== null);
  const count = `${heuristicRefusals + heuristicAnswers}${ofAll ? ` of the ${tally.answerable.cases}` : ""}`;
  return `${count} answerable case(s) read only by a heuristic (${kinds.join("; ")}) are counted as false refusals`;
}

/** 正确拒答率, a lower bound: exact refusals of unanswerable cases / (those + answerable cases that refused or may have). */
export function correctRefusalRate(cases: readonly EvaluatedCase[]): RefusalRate {
  const tally = tallyOf(cases);
  const missing = missingCasesReason(cases, tally);
  if (missing !== null) return { value: notApplicable(missing), note: null };
  // Without an unanswerable case no refusal can be correct: the value would only restate false_refusal_rate.
  if (tally.unanswerable.cases === 0) return { value: notApplicable("the run has no unanswerable case (answerable: false) whose abstention was recorded, so no refusal could be a correct one — add unanswerable cases to the dataset; false_refusal_rate measures the refusals of answerable ones"), note: null };
  const heuristicAnswerable = tally.answerable.heuristicRefusals + tally.answerable.heuristicAnswers;
  const correct = tally.unanswerable.exactRefusals;
  const refusals = correct + tally.answerable.exactRefusals + heuristicAnswerable;
  const uncredited = tally.unanswerable.heuristicRefusals;
  if (refusals === 0) {
    const left = uncredited > 0 ? `; ${uncredited} refusal(s) of unanswerable cases were read only by a heuristic (a refusal phrase beside claims of the answer's own) and are not counted — ${ABSTENTION_READ_EXACTLY}` : "";
    return { value: notApplicable(`no case's answer was read exactly as a refusal (the rate is correct refusals / refusals)${left}`), note: null };
  }
  const parts = [
    uncredited > 0 ? `${uncredited} refusal(s) of unanswerable cases read only by a heuristic (a refusal phrase beside claims of the answer's own) are not counted as correct refusals` : null,
    heuristicAnswerable > 0 ? heuristicAnswerablePhrase(tally, false) : null,
  ].filter((part): part is string => part !== null);
  if (parts.length === 0) return { value: applicable(correct / refusals), note: null };
  const favourableRefusals = correct + uncredited + tally.answerable.exactRefusals;
  const bestCase = favourableRefusals === 0 ? null : (correct + uncredited) / favourableRefusals;
  return { value: applicable(correct / refusals), note: `${parts.join("; ")}, so the value is a lower bound — ${ABSTENTION_READ_EXACTLY}`, bestCase };
}

/** 错误拒答率, an upper bound: answerable cases that refused or may have / answerable cases. */
export function falseRefusalRate(cases: readonly EvaluatedCase[]): RefusalRate {
  const tally = tallyOf(cases);
  const missing = missingCasesReason(cases, tally);
  if (missing !== null) return { value: notApplicable(missing), note: null };
  const { answerable } = tally;
  if (answerable.cases === 0) {
    return { value: notApplicable(`the run has no answerable case whose abstention was recorded (the rate is false refusals / answerable cases; its ${tally.unanswerable.cases} read case(s) are all unanswerable)`), note: null };
  }
  const heuristicAnswerable = answerable.heuristicRefusals + answerable.heuristicAnswers;
  const value = applicable((answerable.exactRefusals + heuristicAnswerable) / answerable.cases);
  if (heuristicAnswerable === 0) return { value, note: null };
  return { value, note: `${heuristicAnswerablePhrase(tally, true)}, so the value is an upper bound — ${ABSTENTION_READ_EXACTLY}`, bestCase: answerable.exactRefusals / answerable.cases };
}
