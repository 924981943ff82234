/**
 * A simple-format case that names relevant documents only (relevant_document_ids, no relevant_chunk_ids, no
 * evidence: the most common labelling of public RAG datasets) is scored per document by the retrieval ranking
 * metrics, and the values are trec_eval 10.0's (test/data/trec-eval-documents/, recorded by its record.sh with the
 * command there: a chunk ranking as a run whose docno at each rank is the chunk's document id at its first occurrence
 * and a unique non-relevant docno for a later chunk of the same document). Before, no retrieval metric scored such a
 * case: every one read "not applicable: the case has no gold evidence".
 *
 * Built CLI as a subprocess over the simple-format file with a task module (tasks/scripted-rag-task.ts retrieves the
 * chunks each case's metadata scripts), the metric values read back from the run's stored results (--output).
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { evalCase } from "../../../contracts/eval-case.js";
import { ClickHouseCaseStore } from "../../../store/clickhouse/clickhouse-case-store.js";
import { openClickHouse } from "../../../store/clickhouse/clickhouse-connection.js";
import { runMigrations } from "../../../store/clickhouse/run-migrations.js";
import { runRagscope, tasksFolder, type Finished } from "./support/run-ragscope.js";

const folder = new URL("../../data/trec-eval-documents/", import.meta.url);
const read = (name: string) => readFileSync(new URL(name, folder), "utf8");
const datasetFile = new URL("cases.jsonl", folder).pathname;

interface SimpleCase {
  id: string;
  relevant_document_ids: string[];
  metadata: { retrieve: { chunk: string; document?: string }[] };
}
const cases = read("cases.jsonl").trim().split("\n").map((line) => JSON.parse(line) as SimpleCase);

/** trec_eval's measure names for ours. */
const TREC_MEASURE: Record<string, string> = { map: "map", mrr: "recip_rank" };
for (const k of [1, 3, 5, 10]) {
  TREC_MEASURE[`precision_at_${k}`] = `P_${k}`;
  TREC_MEASURE[`recall_at_${k}`] = `recall_${k}`;
  TREC_MEASURE[`hit_at_${k}`] = `success_${k}`;
  TREC_MEASURE[`ndcg_at_${k}`] = `ndcg_cut_${k}`;
}

/** trec_eval's printed values by `measure<TAB>topic`. */
const recorded = new Map(
  read("recorded.txt")
    .trim()
    .split("\n")
    .map((line) => line.split(/\s+/))
    .map(([measure, topic, value]) => [`${measure}\t${topic}`, value!] as const),
);
const recordedTopics = [...new Set([...recorded.keys()].map((key) => key.split("\t")[1]!))].filter((topic) => topic !== "all").sort();

interface Results {
  case_results: { case_id: string; case_result_id: string }[];
  evaluation_results: { case_result_id: string; evaluator_id: string; evaluator_version: string; reason: string; metric_values: Record<string, number | null> }[];
}

describe("ragscope eval: a simple-format case naming relevant documents only is scored per document, as trec_eval scores it", () => {
  let workspace: string;
  let run: Finished;
  let results: Results;

  before(async () => {
    workspace = await mkdtemp(path.join(os.tmpdir(), "ragscope-document-gold-"));
    const output = path.join(workspace, "results.json");
    run = await runRagscope(
      ["eval", "--dataset", datasetFile, "--task", path.join(tasksFolder, "scripted-rag-task.ts"), "--run-id", "document-gold", "--data-dir", path.join(workspace, "data"), "--output", output],
      { RAGSCOPE_CLICKHOUSE_URL: "" },
    );
    assert.ok(run.status === 0 || run.status === 1, run.stdout + run.stderr);
    results = JSON.parse(await readFile(output, "utf8")) as Results;
  });
  after(async () => {
    await rm(workspace, { recursive: true, force: true });
  });

  const resultOf = (caseId: string, evaluatorId: string) => {
    const caseResult = results.case_results.find((item) => item.case_id === caseId);
    assert.ok(caseResult, `no case result for ${caseId}`);
    const found = results.evaluation_results.find((item) => item.case_result_id === caseResult.case_result_id && item.evaluator_id === evaluatorId);
    assert.ok(found, `no ${evaluatorId} result for ${caseId}`);
    return found;
  };

  test("the recorded run is the cases' chunk rankings, each document's first chunk under its id and a later one under a non-relevant docno", () => {
    const expectedRun = cases
      .filter((item) => recordedTopics.includes(item.id))
      .flatMap((item) => {
        const seen = new Set<string>();
        return item.metadata.retrieve.map((chunk, index) => {
          const rank = index + 1;
          const docno = seen.has(chunk.document!) ? `${chunk.document}.repeat-at-${rank}` : chunk.document!;
          seen.add(chunk.document!);
          return `${item.id} Q0 ${docno} ${rank} ${100 - rank} chunks`;
        });
      });
    assert.deepEqual(read("run.txt").trim().split("\n"), expectedRun);
    const expectedQrels = cases.filter((item) => recordedTopics.includes(item.id)).flatMap((item) => item.relevant_document_ids.map((document) => `${item.id} 0 ${document} 3`));
    assert.deepEqual(read("qrels.txt").trim().split("\n"), expectedQrels);
  });

  test("retrieval.ranking's values equal trec_eval's, to its 4 printed decimals, for every measure and case", () => {
    const mismatches: string[] = [];
    let compared = 0;
    for (const topic of recordedTopics) {
      const values = resultOf(topic, "retrieval.ranking").metric_values;
      for (const [ours, theirs] of Object.entries(TREC_MEASURE)) {
        const printed = recorded.get(`${theirs}\t${topic}`);
        assert.ok(printed !== undefined, `trec_eval printed no ${theirs} for ${topic}`);
        const mine = values[ours];
        if (mine === null || mine === undefined || mine.toFixed(4) !== printed) mismatches.push(`${topic} ${ours}: trec_eval ${theirs} ${printed}, ours ${mine}`);
        compared += 1;
      }
      // The seed's recall_at_k is Recall@5.
      assert.equal(values.recall_at_k, values.recall_at_5);
    }
    assert.deepEqual(mismatches, []);
    assert.equal(compared, 5 * 18, "every recorded case and measure compared");
  });

  test("the reason names each relevant document and the rank of its first chunk; the evaluator's version is 4", () => {
    const ranking = resultOf("one_never_retrieved", "retrieval.ranking");
    assert.equal(ranking.evaluator_version, "4");
    assert.match(ranking.reason, / — relevant documents \(the case names documents only; a later chunk of a document found adds nothing\): travel_policy retrieved at rank 1 \(matched by ids\); expense_policy not retrieved$/);
  });

  test("document hit, first evidence rank and cross-document recall are scored per document; relevant_chunks is not applicable", () => {
    const coverage = resultOf("two_documents", "retrieval.coverage");
    assert.equal(coverage.evaluator_version, "4");
    assert.equal(coverage.metric_values.document_hit_at_k, 1);
    assert.equal(coverage.metric_values.first_evidence_rank, 1);
    assert.equal(coverage.metric_values.cross_document_recall, 1);
    assert.equal(coverage.metric_values.relevant_chunks, null);
    assert.equal(resultOf("one_never_retrieved", "retrieval.coverage").metric_values.cross_document_recall, 0.5);
    const late = resultOf("found_late", "retrieval.coverage");
    assert.equal(late.metric_values.first_evidence_rank, 2);
    assert.match(late.reason, /gold documents not retrieved: pager_setup/);
  });

  test("context and citation metrics, which need the evidence itself, stay not applicable and say why — not 0", () => {
    const context = resultOf("repeats", "context.coverage");
    assert.equal(context.metric_values.context_recall, null);
    assert.match(context.reason, /the case names relevant documents only \(relevant_document_ids\), and context recall \(which chunk or text of the document reached the prompt\) needs the evidence itself: give relevant_chunk_ids or evidence to score it/);
  });

  test("a relevant document no chunk came from is a RETRIEVAL_MISS", () => {
    assert.match(resultOf("none_retrieved", "root_cause").reason, /^RETRIEVAL_MISS: gold #1 \(payroll_calendar\) not retrieved/);
    assert.match(resultOf("one_never_retrieved", "root_cause").reason, /^RETRIEVAL_MISS: gold #2 \(expense_policy\) not retrieved/);
  });

  test("a ranking whose chunks carry no document id cannot be compared with documents: not applicable, not recall 0, not RETRIEVAL_MISS", () => {
    const ranking = resultOf("no_document_ids", "retrieval.ranking");
    for (const name of ["recall_at_k", "recall_at_5", "mrr", "map", "hit_at_1", "ndcg_at_10", "precision_at_5"]) assert.equal(ranking.metric_values[name], null, name);
    assert.equal(
      ranking.reason,
      "not applicable: the case names relevant documents only (relevant_document_ids), which are compared with the ranking by document id, and none of its chunks carries a document id: record each chunk's document id (documentId in traceRetrieve)",
    );
    assert.equal(resultOf("no_document_ids", "retrieval.coverage").metric_values.document_hit_at_k, null);
    const rootCause = results.evaluation_results.find((item) => item.evaluator_id === "root_cause" && item.case_result_id === results.case_results.find((entry) => entry.case_id === "no_document_ids")!.case_result_id);
    assert.doesNotMatch(rootCause?.reason ?? "", /RETRIEVAL_MISS/);
  });
});

/**
 * Compatibility: the case's content is unchanged (document-level gold is derived when a case is evaluated:
 * evaluators/evidence/case-gold-evidence.ts), so a store that an earlier release filled from the same simple file
 * takes the file again without a refusal, and its stored case is now scored per document.
 */
describe("ragscope eval: a documents-only simple file an earlier release stored runs again, and is scored", () => {
  let workspace: string;
  before(async () => {
    workspace = await mkdtemp(path.join(os.tmpdir(), "ragscope-document-gold-store-"));
  });
  after(async () => {
    await rm(workspace, { recursive: true, force: true });
  });

  test("the stored case as the earlier release's reader made it (gold_evidence [], documents in metadata): no refusal, recall per document", async () => {
    const file = path.join(workspace, "plans.jsonl");
    const retrieve = [
      { chunk: "faq#1", document: "faq", text: "Questions and answers." },
      { chunk: "plan_gold#1", document: "plan_gold", text: "Gold members use the lounge." },
    ];
    await writeFile(file, `${JSON.stringify({ id: "plans", question: "Which plans include lounge access?", relevant_document_ids: ["plan_gold"], question_type: "fact", metadata: { retrieve, answer: "Gold." } })}\n`);
    const dataDir = path.join(workspace, "data");
    // Written into the store directly, field by field as the earlier release's simple-format reader gave it.
    const connection = await openClickHouse({ url: null, username: "default", password: "", database: "ragscope", dataPath: dataDir });
    try {
      await runMigrations(connection);
      const earlier = evalCase.parse({
        case_id: "plans",
        case_version: "1",
        dataset_id: "plans",
        dataset_version: "sha256-000000000000",
        input: "Which plans include lounge access?",
        gold_evidence: [],
        ability_tags: ["fact"],
        answerable: true,
        metadata: { retrieve, answer: "Gold.", question_type: "fact", relevant_document_ids: ["plan_gold"], tags: [] },
      });
      await new ClickHouseCaseStore(connection).put([earlier]);
    } finally {
      await connection.close();
    }
    const output = path.join(workspace, "results.json");
    const run = await runRagscope(["eval", "--dataset", file, "--task", path.join(tasksFolder, "scripted-rag-task.ts"), "--run-id", "again", "--data-dir", dataDir, "--output", output], { RAGSCOPE_CLICKHOUSE_URL: "" });
    assert.ok(run.status === 0 || run.status === 1, run.stdout + run.stderr);
    assert.doesNotMatch(run.stderr, /differs in/);
    const results = JSON.parse(await readFile(output, "utf8")) as Results;
    const ranking = results.evaluation_results.find((item) => item.evaluator_id === "retrieval.ranking");
    // One relevant document, first at rank 2 of 2: reciprocal rank 1/2, not in the top 1, in the top 3.
    assert.equal(ranking?.metric_values.mrr, 0.5);
    assert.equal(ranking?.metric_values.recall_at_1, 0);
    assert.equal(ranking?.metric_values.recall_at_3, 1);
  });
});
