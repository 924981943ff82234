/**
 * Several judges voting on one metric (seed 004 §九.3 "对关键样本使用多个 Judge
 * 投票"). Every judge is asked; grader errors do not vote.
 *
 * - majority: pass when more judges pass than fail; a tie is a fail (a tie is
 *   not evidence of a pass). The value is the median of the votes' values,
 *   which agrees with the majority for an odd number of votes.
 * - mean: the value is the mean of the votes' values and the pass rule is
 *   applied to it.
 *
 * Disagreement is always reported in details (`votes`, `disagreement`), and a
 * split vote lowers the self-reported confidence to "low" so that it is routed
 * to review. Fewer votes than the quorum (default: more than half of the
 * judges) is a grader error carrying the voters' errors: never a pass.
 */
import { satisfies } from "../threshold.js";
import type { Judge, JudgeGraderError, JudgeOutcome, JudgeRequest, JudgeVerdict } from "./judge.js";
import { sumUsage } from "./judge.js";
import { thresholdFor } from "./judge-thresholds.js";

export type VotingMode = "majority" | "mean";

export interface VotingJudgeOptions {
  judges: readonly Judge[];
  mode: VotingMode;
  /** Minimum number of verdicts (not grader errors) for a result. */
  quorum?: number;
  id?: string;
}

export class VotingJudge implements Judge {
  readonly id: string;
  readonly model: string;
  readonly promptVersion: string;
  readonly confidenceSemantics: "judge_self_report" | "heuristic";
  private readonly judges: readonly Judge[];
  private readonly mode: VotingMode;
  private readonly quorum: number;

  constructor(options: VotingJudgeOptions) {
    if (options.judges.length === 0) throw new Error("a voting judge needs at least one judge");
    const ids = options.judges.map((judge) => judge.id);
    if (new Set(ids).size !== ids.length) throw new Error(`voting judges must have distinct ids, got ${ids.join(", ")}`);
    this.judges = options.judges;
    this.mode = options.mode;
    this.quorum = options.quorum ?? Math.floor(options.judges.length / 2) + 1;
    if (!Number.isInteger(this.quorum) || this.quorum < 1 || this.quorum > options.judges.length) throw new RangeError(`quorum must be between 1 and ${options.judges.length}, got ${this.quorum}`);
    this.id = options.id ?? `vote-${options.mode}(${ids.join(",")})`;
    this.model = options.judges.map((judge) => judge.model).join(",");
    this.promptVersion = [...new Set(options.judges.map((judge) => judge.promptVersion))].join(",");
    this.confidenceSemantics = options.judges.every((judge) => judge.confidenceSemantics === "heuristic") ? "heuristic" : "judge_self_report";
  }

  async judge(request: JudgeRequest, signal?: AbortSignal): Promise<JudgeOutcome> {
    const outcomes = await Promise.all(this.judges.map((judge) => judge.judge(request, signal)));
    const usage = sumUsage(outcomes.map((outcome) => outcome.usage));
    const promptVersion = [...new Set(outcomes.map((outcome) => outcome.promptVersion))].join(",");
    const verdicts = outcomes.filter((outcome): outcome is JudgeVerdict => outcome.kind !== "grader_error");
    const errors = outcomes.filter((outcome): outcome is JudgeGraderError => outcome.kind === "grader_error");
    const common = { metric: request.metric, judgeId: this.id, promptVersion, usage };
    if (verdicts.length < this.quorum) {
      const first = errors[0] as JudgeGraderError;
      return {
        kind: "grader_error",
        ...common,
        errorType: first.errorType,
        message: `${verdicts.length} of ${this.judges.length} judges gave a verdict, quorum ${this.quorum}: ${errors.map((error) => `${error.judgeId}: ${error.errorType} (${error.message})`).join("; ")}`,
      };
    }
    const values = verdicts.map((verdict) => verdict.value);
    const passVotes = verdicts.filter((verdict) => verdict.kind === "pass").length;
    const failVotes = verdicts.length - passVotes;
    const mean = values.reduce((total, value) => total + value, 0) / values.length;
    const standardDeviation = Math.sqrt(values.reduce((total, value) => total + (value - mean) ** 2, 0) / values.length);
    const unanimous = passVotes === 0 || failVotes === 0;
    let kind: "pass" | "fail";
    let value: number;
    if (this.mode === "majority") {
      kind = passVotes > failVotes ? "pass" : "fail";
      value = median(values);
    } else {
      value = mean;
      kind = satisfies(value, thresholdFor(request.metric, request.evalCase)) ? "pass" : "fail";
    }
    const tie = passVotes === failVotes;
    const spokesman = verdicts.find((verdict) => verdict.kind === kind) ?? (verdicts[0] as JudgeVerdict);
    const tally = `${passVotes} pass, ${failVotes} fail${errors.length > 0 ? `, ${errors.length} grader error${errors.length === 1 ? "" : "s"}` : ""}`;
    const how = this.mode === "majority" ? `majority of ${verdicts.length} judges (${tally}${tie ? "; tie counts as fail" : ""})` : `mean ${round(value)} of ${verdicts.length} judges (${tally})`;
    return {
      kind,
      ...common,
      value,
      reason: `${how}${unanimous ? "" : `; judges disagree (values ${round(Math.min(...values))}..${round(Math.max(...values))})`} — ${spokesman.judgeId}: ${spokesman.reason}`,
      details: {
        ...spokesman.details,
        votes: outcomes.map((outcome) =>
          outcome.kind === "grader_error"
            ? { judge_id: outcome.judgeId, kind: outcome.kind, error_type: outcome.errorType }
            : { judge_id: outcome.judgeId, kind: outcome.kind, value: outcome.value },
        ),
        disagreement: {
          unanimous,
          tie,
          pass_votes: passVotes,
          fail_votes: failVotes,
          grader_errors: errors.length,
          value_range: Math.max(...values) - Math.min(...values),
          value_standard_deviation: standardDeviation,
        },
        confidence: unanimous ? (spokesman.details.confidence ?? "medium") : "low",
      },
    };
  }
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((first, second) => first - second);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

function round(value: number): string {
  return String(Math.round(value * 1000) / 1000);
}
