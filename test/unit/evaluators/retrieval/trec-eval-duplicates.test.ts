/**
 * A list that names the same chunk twice, against trec_eval 10.0 (test/data/trec-eval-duplicates/, recorded by its
 * record.sh with the command there). context_precision is trec_eval's set_P over the context's packed list (relevant
 * / all): on the list without a repeat the two agree (0.5); trec_eval refuses the list with one ("duplicate docs",
 * exit 4), as ragscope's ranking metrics refuse a ranking that names a chunk twice. context_precision counted the
 * repeated gold chunk twice (2/3, the prompt read more relevant than it is); it is now not scored, saying why, while
 * context_recall (what the packed chunks cover together) and context_redundancy (which counts the repeat) still are.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { contextCoverageEvaluator } from "../../../../evaluators/rules/context-coverage.js";
import { contextRedundancyEvaluator } from "../../../../evaluators/rules/context-redundancy.js";
import { retrievalRankingEvaluator } from "../../../../evaluators/rules/retrieval-ranking.js";
import { buildCase, buildCaseResult } from "../../../support/case-results.js";

const folder = new URL("../../../data/trec-eval-duplicates/", import.meta.url);
const read = (name: string) => readFileSync(new URL(name, folder), "utf8");

/** Each recorded run: trec_eval's output lines and its exit code. */
function recordedRuns(): Map<string, { lines: string[]; exit: number }> {
  const runs = new Map<string, { lines: string[]; exit: number }>();
  for (const block of read("recorded.txt").split(/^== /m).filter((text) => text.trim() !== "")) {
    const [name, ...lines] = block.trimEnd().split("\n");
    const exit = Number(/^exit (\d+)$/.exec(lines.pop()!)![1]);
    runs.set(name!, { lines, exit });
  }
  return runs;
}

/** The packed chunk ids of a run file, in rank order. */
const packedIds = (name: string) => read(name).trim().split("\n").map((line) => line.split(/\s+/)[2]!);

// The qrels' relevant chunks (c1, c3) hold the case's gold evidence; c2 holds none.
const qrels = read("qrels.txt").trim().split("\n").map((line) => line.split(/\s+/));
const retrieved = qrels.map(([, , chunkId, relevance]) => ({ chunk_id: chunkId!, document_id: relevance === "1" ? "policy" : "other", section_id: relevance === "1" ? `s_${chunkId}` : null }));
const evalCase = buildCase({ gold_evidence: qrels.filter(([, , , relevance]) => relevance === "1").map(([, , chunkId]) => ({ document_id: "policy", section_id: `s_${chunkId}` })) });
const evaluate = (runFile: string) => {
  const caseResult = buildCaseResult({ retrieved, contextChunkIds: packedIds(runFile) });
  return { caseResult, coverage: contextCoverageEvaluator.evaluate({ caseResult, evalCase }).values };
};

describe("a list that names a chunk twice, as trec_eval treats it", () => {
  test("without a repeat, context_precision is trec_eval's set_P", () => {
    const recorded = recordedRuns().get("run-distinct.txt")!;
    assert.equal(recorded.exit, 0);
    const setP = recorded.lines.find((line) => /^set_P\s+packed\s/.test(line))!.split(/\s+/)[2]!;
    assert.equal(setP, "0.5000");
    const precision = evaluate("run-distinct.txt").coverage.context_precision!;
    assert.ok(precision.applicable);
    assert.equal(precision.value.toFixed(4), setP);
  });

  test("with a repeat, trec_eval refuses the run, and context_precision is not scored, naming the chunk and its positions", () => {
    const recorded = recordedRuns().get("run-duplicate.txt")!;
    assert.equal(recorded.exit, 4);
    assert.match(recorded.lines.join("\n"), /duplicate docs c1/);
    assert.ok(!recorded.lines.some((line) => /^set_P/.test(line)), "no set_P printed");

    const { caseResult, coverage } = evaluate("run-duplicate.txt");
    const precision = coverage.context_precision!;
    assert.equal(precision.applicable, false, "not 2/3: the gold chunk c1 counted twice");
    assert.match(precision.applicable ? "" : precision.reason, /^the context packs chunk "c1" twice \(positions 1 and 3\): precision over a list that names a chunk twice is not scored/);
    const recall = coverage.context_recall!;
    assert.ok(recall.applicable && recall.value === 0.5, "context_recall is still measured: c1 covers one of the two pieces");
    const redundancy = contextRedundancyEvaluator.evaluate({ caseResult, evalCase }).values.context_redundancy!;
    assert.ok(redundancy.applicable && Math.abs(redundancy.value - 1 / 3) < 1e-12, "the repeat is context_redundancy's to count");
  });

  test("the ranking metrics refuse the same list as a ranking, as they did", () => {
    const caseResult = buildCaseResult({ retrieved: packedIds("run-duplicate.txt").map((chunk_id) => retrieved.find((chunk) => chunk.chunk_id === chunk_id)!) });
    assert.match(retrievalRankingEvaluator.evaluate({ caseResult, evalCase }).inputError ?? "", /lists chunk "c1" of document "policy" twice \(ranks 1 and 3\)/);
  });
});
