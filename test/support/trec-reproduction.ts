/**
 * Recomputes trec_eval's output lines from its test files with our metric
 * functions, so tests can compare them with the expected out.* files line by line.
 * It mirrors the trec_eval driver (trec_eval.c): evaluate every qrels topic in
 * strcmp order, ignore run topics without qrels, average per-topic values
 * arithmetically and sum the num_* counts for the `all` row.
 */
import { evaluateRanking, type RankingEvaluation } from "../../evaluators/retrieval/evaluate-ranking.js";
import { meanOverQueries } from "../../evaluators/retrieval/mean-over-queries.js";
import { compareByteOrder, rankLikeTrecEval } from "../../evaluators/retrieval/trec-ranking.js";
import type { MetricValue } from "../../evaluators/metric-value.js";
import { formatFixed } from "../../evaluators/format-fixed.js";
import { parseQrels, parseRun, readTrecFile, type ExpectedLine, type Qrels, type RunResult } from "./trec-files.js";

export interface TrecInvocation {
  readonly qrelsFile: string;
  readonly resultsFile: string;
  /** `-l` */
  readonly relevanceLevel?: number;
  /** `-c`: a qrels topic missing from the run scores 0 and still counts in the mean. */
  readonly scoreMissingTopics?: boolean;
  /** `-M` */
  readonly truncateTo?: number;
}

/** The measures our retrieval metrics cover. */
export const REPRODUCED_MEASURE = /^(runid|num_q|num_ret|num_rel|num_rel_ret|map|Rprec|recip_rank|ndcg|(P|recall|success|ndcg_cut)_\d+)$/;

export interface RankedTopic {
  readonly topic: string;
  readonly ranking: readonly RunResult[];
  readonly judgments: ReadonlyMap<string, number>;
}

/** Qrels topics in trec_eval's order, each with its run ranked as trec_eval ranks it. */
export function rankedTopics(invocation: TrecInvocation): RankedTopic[] {
  const qrels: Qrels = parseQrels(readTrecFile(invocation.qrelsFile));
  const run = parseRun(readTrecFile(invocation.resultsFile));
  return [...qrels.keys()].sort(compareByteOrder).map((topic) => {
    const results = run.topics.get(topic);
    if (results === undefined && invocation.scoreMissingTopics !== true) {
      throw new Error(`result qid ${topic} not found (trec_eval needs -c for this)`);
    }
    const options = invocation.truncateTo === undefined ? {} : { truncateTo: invocation.truncateTo };
    return { topic, ranking: rankLikeTrecEval(results ?? [], options), judgments: qrels.get(topic)! };
  });
}

/** Our printed value for every reproduced measure named in `expected`, keyed `measure\ttopic`. */
export function reproduceTrecEval(invocation: TrecInvocation, expected: readonly ExpectedLine[]): Map<string, string> {
  const cutoffs = cutoffsNamedIn(expected);
  const topics = rankedTopics(invocation);
  const evaluations = topics.map(({ topic, ranking, judgments }) => ({
    topic,
    evaluation: evaluateRanking(ranking, judgments, {
      cutoffs,
      relevanceLevel: invocation.relevanceLevel ?? 1,
      whenNoRelevantJudgments: "zero",
    }),
  }));
  const printed = new Map<string, string>();
  // Summary-only outputs (no -q) have no per-topic rows; emit only the rows the file has.
  const printedTopics = new Set(expected.map((line) => line.topic));
  const print = (measure: string, topic: string, value: string): void => {
    if (printedTopics.has(topic)) printed.set(`${measure}\t${topic}`, value);
  };
  const measures = new Set(expected.map((line) => line.measure).filter((measure) => REPRODUCED_MEASURE.test(measure)));
  for (const measure of measures) {
    if (measure === "runid") {
      print("runid", "all", parseRun(readTrecFile(invocation.resultsFile)).runId);
      continue;
    }
    if (measure === "num_q") {
      print("num_q", "all", String(topics.length));
      continue;
    }
    if (measure.startsWith("num_")) {
      let sum = 0;
      for (const { topic, evaluation } of evaluations) {
        const count = countOf(measure, evaluation);
        sum += count;
        print(measure, topic, String(count));
      }
      print(measure, "all", String(sum));
      continue;
    }
    const values: MetricValue[] = [];
    for (const { topic, evaluation } of evaluations) {
      const value = metricOf(measure, evaluation);
      values.push(value);
      print(measure, topic, printedValue(value));
    }
    print(measure, "all", printedValue(meanOverQueries(values).mean));
  }
  return printed;
}

/** trec_eval prints `%6.4f`: formatFixed rounds as C printf does (exact halves to even). */
function printedValue(value: MetricValue): string {
  return value.applicable ? formatFixed(value.value, 4) : `not applicable: ${value.reason}`;
}

function cutoffsNamedIn(expected: readonly ExpectedLine[]): number[] {
  const cutoffs = new Set<number>();
  for (const { measure } of expected) {
    const match = /^(?:P|recall|success|ndcg_cut)_(\d+)$/.exec(measure);
    if (match !== null) cutoffs.add(Number(match[1]));
  }
  return [...cutoffs];
}

function countOf(measure: string, evaluation: RankingEvaluation): number {
  switch (measure) {
    case "num_ret":
      return evaluation.retrievedCount;
    case "num_rel":
      return evaluation.relevantCount;
    case "num_rel_ret":
      return evaluation.relevantRetrievedCount;
    default:
      throw new Error(`not a count measure: ${measure}`);
  }
}

function metricOf(measure: string, evaluation: RankingEvaluation): MetricValue {
  switch (measure) {
    case "map":
      return evaluation.averagePrecision;
    case "Rprec":
      return evaluation.rPrecision;
    case "recip_rank":
      return evaluation.reciprocalRank;
    case "ndcg":
      return evaluation.ndcg;
  }
  const match = /^(P|recall|success|ndcg_cut)_(\d+)$/.exec(measure);
  if (match === null) throw new Error(`not a reproduced measure: ${measure}`);
  const cutoff = evaluation.cutoffs.find((entry) => entry.k === Number(match[2]));
  if (cutoff === undefined) throw new Error(`cutoff ${match[2]} was not evaluated`);
  const family = match[1] as "P" | "recall" | "success" | "ndcg_cut";
  return { P: cutoff.precision, recall: cutoff.recall, success: cutoff.hit, ndcg_cut: cutoff.ndcg }[family];
}
