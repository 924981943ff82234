/**
 * Messages name each piece of gold evidence by what tells it from the case's others
 * (evaluators/evidence/gold-evidence-label.ts): two gold chunks of one document, one retrieved and one not, are told
 * apart in every reason. Before, every reason named a piece by its document id: `ragscope eval` printed "gold evidence:
 * member-points not in the reranked list …; member-points ranked 2 after the rerank", the root cause "gold #1
 * (member-points) not retrieved" and context.coverage "missing from the context: member-points", and the web UI's trace
 * page said "The correct document was not retrieved" beside a chunk table marking the member-points chunk at rank 2 as
 * gold. Nobody could tell that points-1 was the one missing.
 *
 * Built CLI as a subprocess with a task that runs every stage through the SDK's wrappers (tasks/staged-rag-task.ts),
 * its printed output and --output read back, then `ragscope serve` over the same data folder and its trace page over
 * HTTP.
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { startServeWithUi, type ServeWithUi } from "../../support/serve-with-ui.js";
import { runRagscope, tasksFolder, type Finished } from "./support/run-ragscope.js";

interface Results {
  case_results: { case_id: string; case_result_id: string }[];
  evaluation_results: { case_result_id: string; evaluator_id: string; reason: string }[];
}

const EXPIRY = "Member points expire 12 months after they are earned.";
const SHIPPING = "Member points cannot be used to pay for shipping.";

const cases = [
  {
    case_id: "c_points",
    case_version: "1",
    input: "When do member points expire, and can they pay for shipping?",
    reference_answer: "Member points expire 12 months after they are earned and cannot pay for shipping.",
    // Two gold chunks of one document: points-2 is retrieved at rank 2, points-1 never.
    gold_evidence: [
      { document_id: "member-points", chunk_id: "points-1", text: EXPIRY },
      { document_id: "member-points", chunk_id: "points-2", text: SHIPPING },
    ],
    metadata: {
      retrieve: [
        { chunk: "travel-1", document: "travel", text: "Travel must be booked through the travel desk." },
        { chunk: "points-2", document: "member-points", text: SHIPPING },
      ],
      rerank: ["travel-1", "points-2"],
      answer: "Member points never expire.",
      cite: ["points-2"],
    },
  },
];

describe("ragscope eval: two gold chunks of one document, one retrieved and one not, are named apart in every reason", () => {
  let folder: string;
  let evaluated: Finished;
  let results: Results;

  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-gold-names-"));
    const dataset = path.join(folder, "points.json");
    await writeFile(dataset, JSON.stringify({ dataset_id: "gold-names", dataset_version: "1", cases }));
    const output = path.join(folder, "results.json");
    evaluated = await runRagscope(["eval", "--dataset", dataset, "--task", path.join(tasksFolder, "staged-rag-task.ts"), "--run-id", "gold-names", "--data-dir", path.join(folder, "data"), "--output", output], { RAGSCOPE_CLICKHOUSE_URL: "" });
    // The case fails: the gate blocks (exit 1), it did decide.
    assert.equal(evaluated.status, 1, evaluated.stdout + evaluated.stderr);
    results = JSON.parse(await readFile(output, "utf8")) as Results;
  });
  after(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  const reasonOf = (evaluatorId: string) => {
    const caseResultId = results.case_results.find((item) => item.case_id === "c_points")!.case_result_id;
    const found = results.evaluation_results.find((item) => item.case_result_id === caseResultId && item.evaluator_id === evaluatorId);
    assert.ok(found, `no ${evaluatorId} result`);
    return found.reason;
  };

  test("the printed reasons name points-1 as the missing piece and points-2 as the retrieved one, and never the document as missing", () => {
    const printed = evaluated.stdout;
    assert.match(printed, /root cause: RETRIEVAL_MISS: gold #1 \(chunk points-1 of member-points\) not retrieved/, printed);
    assert.match(printed, /\[retrieval\.ranking\] .* — gold evidence: chunk points-1 of member-points not in the reranked list \(nor in the first-stage ranking\)[^;]*; chunk points-2 of member-points ranked 2 after the rerank \(2 before; matched by chunk_id\)/, printed);
    assert.match(printed, /\[context\.coverage\] .* — gold evidence missing from the context: chunk points-1 of member-points$/m, printed);
    assert.doesNotMatch(printed, /gold #\d+ \(member-points\)|(missing from the context|gold evidence): member-points\b/, printed);
  });

  test("the stored reasons say the same, citation.evidence's too", () => {
    assert.match(reasonOf("citation.evidence"), /gold evidence not cited: chunk points-1 of member-points$/);
    assert.match(reasonOf("root_cause"), /^RETRIEVAL_MISS: gold #1 \(chunk points-1 of member-points\) not retrieved/);
  });

  describe("the web UI's trace page of the case", () => {
    let serve: ServeWithUi;
    let page: string;
    before(async () => {
      serve = await startServeWithUi(path.join(folder, "data"), {});
      const caseResultId = results.case_results.find((item) => item.case_id === "c_points")!.case_result_id;
      const response = await fetch(`${serve.uiUrl}/traces/${caseResultId}`);
      assert.equal(response.status, 200);
      page = await response.text();
    });
    after(async () => {
      if (serve !== undefined) await serve.stop();
    });

    test("the root cause reads evidence, not document, and names points-1 beside the table that marks points-2 gold", () => {
      const cause = /<p><strong id="root-cause-label">[\s\S]*?<\/p>/.exec(page)?.[0].replace(/<[^>]+>/g, "") ?? "";
      assert.match(cause, /^RETRIEVAL_MISS The correct evidence was not retrieved \(未召回正确文档\) \(the evaluator's\) — gold #1 \(chunk points-1 of member-points\) not retrieved/, cause);
      assert.doesNotMatch(page, /correct document/);
    });
  });
});
