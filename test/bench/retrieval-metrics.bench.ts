/**
 * Ranked-retrieval metrics at scale: 100,000 ranked lists of 100 documents,
 * each with a graded gold set (grades 0–3), evaluated with one
 * createRankingEvaluator (P, recall, hit, nDCG at 1/3/5/10, RR, AP,
 * R-precision, nDCG) — the path retrieval.ranking takes.
 *
 * Inputs come from a seeded pseudo-random generator (mulberry32), so every run
 * measures the same lists. They are generated in batches of 1,000 so the
 * timer covers evaluation only and memory stays that of a batch; the heap is
 * read before, after, and after every batch generation and evaluation (peak).
 */
import { createRankingEvaluator } from "../../evaluators/retrieval/evaluate-ranking.js";
import type { RankedItem } from "../../evaluators/retrieval/relevance-judgments.js";
import { megabytes, type BenchmarkResult } from "./benchmark.js";
import { seededRandom } from "../../core/seeded-random.js";

const LISTS = 100_000;
const LIST_LENGTH = 100;
const DOCUMENT_POOL = 10_000;
const BATCH = 1_000;
const SEED = 20260708;

interface Query {
  items: RankedItem[];
  judgments: Map<string, number>;
}

function createGenerator(seed: number): () => Query {
  const random = seededRandom(seed);
  const documents: RankedItem[] = Array.from({ length: DOCUMENT_POOL }, (_, index) => ({ id: `doc-${index}` }));
  const permutation = Uint32Array.from({ length: DOCUMENT_POOL }, (_, index) => index);
  return () => {
    // A partial Fisher–Yates shuffle draws 100 distinct documents; the array stays a permutation.
    const items: RankedItem[] = new Array(LIST_LENGTH);
    for (let index = 0; index < LIST_LENGTH; index += 1) {
      const pick = index + Math.floor(random() * (DOCUMENT_POOL - index));
      const chosen = permutation[pick]!;
      permutation[pick] = permutation[index]!;
      permutation[index] = chosen;
      items[index] = documents[chosen]!;
    }
    // 1–10 gold documents, 60% of them among the retrieved, grades 1–3 and some judged 0.
    const judgments = new Map<string, number>();
    const goldCount = 1 + Math.floor(random() * 10);
    for (let index = 0; index < goldCount; index += 1) {
      const document = random() < 0.6 ? items[Math.floor(random() * LIST_LENGTH)]! : documents[Math.floor(random() * DOCUMENT_POOL)]!;
      judgments.set(document.id, random() < 0.1 ? 0 : 1 + Math.floor(random() * 3));
    }
    return { items, judgments };
  };
}

export function benchmark(): BenchmarkResult {
  const evaluator = createRankingEvaluator({ cutoffs: [1, 3, 5, 10] });
  const nextQuery = createGenerator(SEED);
  const heapBefore = process.memoryUsage().heapUsed;
  let peakHeap = heapBefore;
  const sample = () => {
    const used = process.memoryUsage().heapUsed;
    if (used > peakHeap) peakHeap = used;
  };

  let evaluationNanoseconds = 0n;
  let ndcgAt10Sum = 0;
  let ndcgAt10Count = 0;
  let averagePrecisionSum = 0;
  let averagePrecisionCount = 0;
  const started = process.hrtime.bigint();
  for (let done = 0; done < LISTS; done += BATCH) {
    const batch: Query[] = new Array(BATCH);
    for (let index = 0; index < BATCH; index += 1) batch[index] = nextQuery();
    sample();
    const batchStarted = process.hrtime.bigint();
    for (const query of batch) {
      const result = evaluator.evaluate(query.items, query.judgments);
      const ndcg = result.cutoffs[3]!.ndcg;
      if (ndcg.applicable) {
        ndcgAt10Sum += ndcg.value;
        ndcgAt10Count += 1;
      }
      if (result.averagePrecision.applicable) {
        averagePrecisionSum += result.averagePrecision.value;
        averagePrecisionCount += 1;
      }
    }
    evaluationNanoseconds += process.hrtime.bigint() - batchStarted;
    sample();
  }
  const totalSeconds = Number(process.hrtime.bigint() - started) / 1e9;
  const evaluationSeconds = Number(evaluationNanoseconds) / 1e9;
  const heapAfter = process.memoryUsage().heapUsed;
  sample();

  return {
    title: `retrieval ranking metrics: ${LISTS.toLocaleString("en-US")} lists × ${LIST_LENGTH} documents, graded gold (seed ${SEED})`,
    figures: [
      { name: "lists/second (evaluation only)", value: Math.round(LISTS / evaluationSeconds), unit: "lists/s" },
      { name: "lists/second (with generation)", value: Math.round(LISTS / totalSeconds), unit: "lists/s" },
      { name: "evaluation time", value: evaluationSeconds, unit: "s" },
      { name: "heap used before", value: megabytes(heapBefore), unit: "MB" },
      { name: "heap used after", value: megabytes(heapAfter), unit: "MB" },
      { name: "heap used peak (sampled per batch)", value: megabytes(peakHeap), unit: "MB" },
      { name: "mean NDCG@10 (check value)", value: ndcgAt10Count === 0 ? "n/a" : ndcgAt10Sum / ndcgAt10Count },
      { name: "mean AP (check value)", value: averagePrecisionCount === 0 ? "n/a" : averagePrecisionSum / averagePrecisionCount },
    ],
  };
}
