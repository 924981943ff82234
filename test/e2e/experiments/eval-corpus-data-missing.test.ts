/**
 * `ragscope eval --corpus FILE`: the knowledge base's document ids, so that a failed case whose gold document the
 * knowledge base lacks reads DATA_MISSING (add the document), not RETRIEVAL_MISS (tune the retriever). Before it no
 * command or dataset field gave the root-cause procedure a corpus index, and DATA_MISSING could never be assigned.
 *
 * Built CLI as a subprocess (tasks/scripted-rag-task.ts retrieves what each case scripts), the root causes read from
 * the printed table and from the store's rows (--output), after the heuristic judge's results decided the verdicts
 * again; and the corpus files eval refuses before anything runs (exit 2, nothing stored; one it cannot read at all:
 * test/integration/cli/unreadable-files.test.ts).
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, truncate, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { runRagscope, tasksFolder, type Finished } from "./support/run-ragscope.js";

const unrelated = { chunk: "canteen_01", document: "canteen_hours", text: "The canteen opens at eight and closes at two." };

const dataset = {
  dataset_id: "corpus_gaps",
  dataset_version: "1",
  cases: [
    {
      // Its gold document is not in the knowledge base: no retriever could have found it.
      case_id: "not_in_corpus",
      case_version: "1",
      input: "How many days of parental leave do fathers get?",
      reference_answer: "Fathers get 20 days of parental leave.",
      gold_evidence: [{ document_id: "parental_leave_2026", text: "Fathers get 20 days of parental leave." }],
      metadata: { retrieve: [unrelated], answer: "The canteen opens at eight." },
    },
    {
      // Its gold document is in the knowledge base, and the retriever did not return it.
      case_id: "in_corpus_missed",
      case_version: "1",
      input: "When is the salary paid?",
      reference_answer: "The salary is paid on the 25th of each month.",
      gold_evidence: [{ document_id: "payroll_calendar", text: "The salary is paid on the 25th of each month." }],
      metadata: { retrieve: [unrelated], answer: "The canteen closes at two." },
    },
  ],
};

interface Results {
  case_results: { case_id: string; case_result_id: string; quality_status: string }[];
  evaluation_results: { case_result_id: string; evaluator_id: string; reason: string }[];
}

const task = path.join(tasksFolder, "scripted-rag-task.ts");

describe("ragscope eval --corpus: a gold document the knowledge base lacks is DATA_MISSING", () => {
  let folder: string;
  let datasetFile: string;

  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-eval-corpus-"));
    datasetFile = path.join(folder, "cases.json");
    await writeFile(datasetFile, JSON.stringify(dataset));
  });
  after(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  const rootCauseOf = (results: Results, caseId: string) => {
    const caseResult = results.case_results.find((item) => item.case_id === caseId)!;
    return results.evaluation_results.find((item) => item.case_result_id === caseResult.case_result_id && item.evaluator_id === "root_cause")?.reason ?? null;
  };

  async function runEval(name: string, extra: string[]): Promise<{ run: Finished; results: Results }> {
    const output = path.join(folder, `${name}.json`);
    const run = await runRagscope(["eval", "--dataset", datasetFile, "--task", task, "--run-id", name, "--data-dir", path.join(folder, name), "--output", output, ...extra], { RAGSCOPE_CLICKHOUSE_URL: "" });
    assert.ok(run.status === 0 || run.status === 1, run.stdout + run.stderr);
    return { run, results: JSON.parse(await readFile(output, "utf8")) as Results };
  }

  test("with a corpus file: DATA_MISSING for the absent document, RETRIEVAL_MISS for the one present and not retrieved — printed and stored", async () => {
    // One id per line, white space and blank lines as a hand-written file has them.
    const corpus = path.join(folder, "corpus.txt");
    await writeFile(corpus, "canteen_hours\r\n  payroll_calendar \n\nholiday_policy\n");
    const { run, results } = await runEval("with-corpus", ["--corpus", corpus]);
    assert.match(run.stdout, /FAILED\s+not_in_corpus@1[\s\S]*?root cause: DATA_MISSING: gold document\(s\) parental_leave_2026 are not in the corpus index \(--corpus [^)]*corpus\.txt\) and were never retrieved/, run.stdout);
    assert.match(run.stdout, /FAILED\s+in_corpus_missed@1[\s\S]*?root cause: RETRIEVAL_MISS: gold #1 \(payroll_calendar "The salary is paid on the 25th of each m…"\) not retrieved/, run.stdout);
    assert.match(run.stdout, /Note: --corpus [^:]*corpus\.txt: 3 document id\(s\); 1 of the 2 gold documents of the cases run are not in it \(parental_leave_2026\)/, run.stdout);
    // The store's rows, as the report and the web UI read them: the judge results' second verdict kept the label.
    assert.match(rootCauseOf(results, "not_in_corpus") ?? "", /^DATA_MISSING: /);
    assert.match(rootCauseOf(results, "in_corpus_missed") ?? "", /^RETRIEVAL_MISS: /);
  });

  test("JSON Lines with a document_id on each line (an export of the index's chunks) serves as well", async () => {
    const corpus = path.join(folder, "chunks.jsonl");
    const lines = [
      { document_id: "payroll_calendar", chunk_id: "payroll_01", text: "The salary is paid on the 25th." },
      { document_id: "payroll_calendar", chunk_id: "payroll_02", text: "Bonuses are paid in March." },
      { document_id: "canteen_hours", chunk_id: "canteen_01" },
    ];
    await writeFile(corpus, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
    const { results } = await runEval("with-jsonl", ["--corpus", corpus]);
    assert.match(rootCauseOf(results, "not_in_corpus") ?? "", /^DATA_MISSING: /);
    assert.match(rootCauseOf(results, "in_corpus_missed") ?? "", /^RETRIEVAL_MISS: /);
  });

  test("without a corpus file both read RETRIEVAL_MISS, and the reason names --corpus", async () => {
    const { results } = await runEval("without-corpus", []);
    assert.match(rootCauseOf(results, "not_in_corpus") ?? "", /^RETRIEVAL_MISS: .*without a corpus index \(ragscope eval --corpus\)/);
    assert.match(rootCauseOf(results, "in_corpus_missed") ?? "", /^RETRIEVAL_MISS: /);
  });

  describe("a corpus file eval cannot use is refused before anything runs (exit 2)", () => {
    const refused = async (name: string, corpus: string, extra: string[] = []) => {
      const dataDir = path.join(folder, name);
      const run = await runRagscope(["eval", "--dataset", datasetFile, "--task", task, "--run-id", name, "--data-dir", dataDir, "--corpus", corpus, ...extra], { RAGSCOPE_CLICKHOUSE_URL: "" });
      assert.equal(run.status, 2, run.stdout + run.stderr);
      assert.equal(existsSync(dataDir), false, "no store was opened");
      return run.stderr;
    };

    test("over the size limit", async () => {
      const large = path.join(folder, "large.txt");
      await writeFile(large, "");
      // A sparse file: its size is read before anything of it is.
      await truncate(large, 256 * 1024 * 1024 + 1);
      assert.match(await refused("large", large), /large\.txt: the corpus file is 256\.0 MiB, over the 256 MiB limit/);
    });

    test("JSON Lines without a document_id on a line, and a line that is not JSON", async () => {
      const broken = path.join(folder, "broken.jsonl");
      await writeFile(broken, ['{"document_id": "payroll_calendar"}', '{"doc": "canteen_hours"}', "{document_id: holiday_policy}", ""].join("\n"));
      const stderr = await refused("broken", broken);
      assert.match(stderr, /broken\.jsonl: line 2: no document_id field \(it has doc\)/);
      assert.match(stderr, /broken\.jsonl: line 3: invalid JSON/);
    });

    test("a .json file, which read line by line would give ids that are not ids", async () => {
      const listed = path.join(folder, "corpus.json");
      await writeFile(listed, JSON.stringify(["payroll_calendar"]));
      assert.match(await refused("json", listed), /corpus\.json: a corpus file is one document id per line/);
    });

    test("a file that lists no id", async () => {
      const empty = path.join(folder, "empty.txt");
      await writeFile(empty, "\n  \n");
      assert.match(await refused("empty", empty), /empty\.txt: the corpus file lists no document id/);
    });

    test("with --endpoint: a running collector decides the root causes", async () => {
      const corpus = path.join(folder, "endpoint-corpus.txt");
      await writeFile(corpus, "payroll_calendar\n");
      assert.match(await refused("endpoint", corpus, ["--endpoint", "http://127.0.0.1:9", "--read-api", "http://127.0.0.1:9"]), /--corpus applies to the embedded collector only/);
    });
  });
});
