/**
 * `ragscope eval --endpoint` and the running collector's store, as a user
 * meets them: `ragscope serve` a subprocess with its own data folder and a
 * dataset of 4 cases, the evals subprocesses sending to it, then serve stopped
 * (the embedded store is one process's) and `gate` run over its folder and
 * its `runs` table read back.
 *
 * Expected, from the README ("Evaluate your own pipeline", "Exit codes") and
 * experiments/README.md ("With --endpoint"):
 * - the run's lineage (`--lineage` values, completion) is recorded in serve's
 *   store, complete with 4 of 4 cases for a whole run;
 * - an eval stopped by SIGINT after its third case is recorded there as
 *   interrupted with 4 planned and 3 stored cases, so `gate` over serve's
 *   store refuses it (exit 2) as it does an embedded run;
 * - before any case runs, the file's cases are compared with serve's: a case
 *   stored with other content or not stored stops the eval (exit 2), naming
 *   the cases, the differing fields and `ragscope dataset push`;
 * - a reviewer token limited to one tenant records a run's lineage as its
 *   tenant's (SECURITY.md, Tenants), beside the eval's record of the same run
 *   id, which stays what gate and report read over every tenant; it may not
 *   record it as another tenant's (403);
 * - the read API compares a file's cases with serve's by their fields'
 *   digests and answers with field names: no reader, not even one of every
 *   tenant, reads a stored case's gold data through it (a blind case's gold
 *   chunk ids and reference answer).
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { openClickHouse } from "../../../store/clickhouse/clickhouse-connection.js";
import { digestCaseFields } from "../../../contracts/eval-case-digest.js";
import { evalCase as evalCaseSchema } from "../../../contracts/eval-case.js";
import { startServeWithUi, type ServeWithUi } from "../../support/serve-with-ui.js";
import { queryRows } from "../../support/temporary-store.js";
import { projectRoot, ragscopeBinary, runRagscope } from "./support/run-ragscope.js";

const CASES = ["case_01", "case_02", "case_03", "case_04"];
const OPERATOR_TOKEN = "operator-token-for-eval-endpoint-lineage";
const TENANT_TOKEN = "acme-reviewer-token-for-eval-endpoint-lineage";
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
/** A blind split's case serve holds: its gold must not be readable through the read API. */
const BLIND_GOLD_CHUNK = "chunk-blind-gold-5521";
const BLIND_GOLD_ANSWER = "The blind gold answer is 5521.";
const BLIND_CASE = {
  dataset_id: "qa_toy",
  dataset_version: "v1",
  case_id: "case_blind",
  case_version: "1",
  input: "What does the blind case ask?",
  reference_answer: BLIND_GOLD_ANSWER,
  gold_evidence: [{ document_id: "doc-blind", chunk_id: BLIND_GOLD_CHUNK }],
  metadata: { split: "blind" },
};

/** Logs each case it starts to TASK_LOG, then answers once TASK_RELEASE/<case id> exists. */
const TASK_MODULE = `import { appendFileSync, existsSync } from "node:fs";
import path from "node:path";
export default async function task(evalCase) {
  appendFileSync(process.env.TASK_LOG, "started " + evalCase.case_id + "\\n");
  while (!existsSync(path.join(process.env.TASK_RELEASE, evalCase.case_id))) await new Promise((resolve) => setTimeout(resolve, 20));
  return "The answer to " + evalCase.case_id + ".";
}
`;

describe("ragscope eval --endpoint: lineage and Eval Cases in the running collector's store", () => {
  let folder: string;
  let serveStore: string;
  let dataset: string;
  let taskFile: string;
  let serve: ServeWithUi | null = null;
  let receiverUrl: string;
  let readApiUrl: string;
  const started = (log: string) => (existsSync(log) ? readFileSync(log, "utf8").split("\n").filter(Boolean) : []);

  const stopServe = async () => {
    await serve?.stop();
  };

  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-eval-endpoint-lineage-"));
    serveStore = path.join(folder, "serve-store");
    dataset = path.join(folder, "qa_toy.json");
    const cases = CASES.map((id) => ({ case_id: id, case_version: "1", input: `What does ${id} ask?`, reference_answer: `The answer to ${id}.` }));
    await writeFile(dataset, JSON.stringify({ dataset_id: "qa_toy", dataset_version: "v1", cases }));
    // serve holds one case more, of tenant globex: a reader limited to acme must not be given it.
    const serveDataset = path.join(folder, "serve-cases.json");
    await writeFile(serveDataset, JSON.stringify({ dataset_id: "qa_toy", dataset_version: "v1", cases: [...cases, { case_id: "case_globex", case_version: "1", input: "What does globex ask?", reference_answer: "Globex's gold answer.", context: { tenant_id: "globex" } }, BLIND_CASE] }));
    taskFile = path.join(folder, "task.mjs");
    await writeFile(taskFile, TASK_MODULE);
    serve = await startServeWithUi(
      serveStore,
      { RAGSCOPE_QUIET_PERIOD_MS: "300", RAGSCOPE_UI_TOKENS: "", RAGSCOPE_UI_TENANT_TOKENS: `operator:*=${sha256(OPERATOR_TOKEN)},tina:acme=${sha256(TENANT_TOKEN)}` },
      { arguments: ["--dataset", path.join(folder, "serve-cases.json")], readyLine: /Eval Cases loaded/, timeoutMs: 60_000 },
    );
    receiverUrl = serve.receiverUrl;
    readApiUrl = serve.uiUrl;
  });
  after(async () => {
    await stopServe();
    await rm(folder, { recursive: true, force: true });
  });

  /** The eval against serve as a subprocess; `name` names its task log and release folder. */
  async function startEval(name: string, args: string[], file = dataset) {
    const log = path.join(folder, `${name}.log`);
    const release = path.join(folder, `${name}-release`);
    await mkdir(release, { recursive: true });
    const child = spawn(process.execPath, [ragscopeBinary, "eval", "--dataset", file, "--task", taskFile, "--concurrency", "1", "--endpoint", receiverUrl, "--read-api", readApiUrl, "--data-dir", path.join(folder, "unused"), ...args], {
      cwd: projectRoot,
      env: { ...process.env, RAGSCOPE_CONFIG: "", RAGSCOPE_READ_API_TOKEN: OPERATOR_TOKEN, TASK_LOG: log, TASK_RELEASE: release },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    const until = async (what: string, condition: () => boolean) => {
      let ended = false;
      void exited.then(() => (ended = true));
      while (!condition()) {
        if (ended) assert.fail(`the eval exited before ${what}:\n${stdout}\n${stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    return { child, exited, log, release, until, stdout: () => stdout, stderr: () => stderr };
  }

  test("a whole run: exits with a decision, and says nothing of lineage left out of serve's store", async () => {
    const running = await startEval("whole", ["--run-id", "remote-whole", "--lineage", "prompt_version=prompt-7", "--lineage", "corpus_version=corpus-2", "--output", path.join(folder, "whole.json")]);
    for (const id of CASES) await writeFile(path.join(running.release, id), "");
    const code = await running.exited;
    assert.notEqual(code, 2, `${running.stdout()}\n${running.stderr()}`);
    const results = JSON.parse(await readFile(path.join(folder, "whole.json"), "utf8"));
    assert.equal(results.case_results.length, 4);
    assert.deepEqual(results.problems, []);
    assert.doesNotMatch(results.notes.join("\n"), /lineage/);
  });

  test("SIGINT while the third case runs: the eval ends interrupted (exit 130), and serve's read API gives the run as interrupted", async () => {
    const running = await startEval("interrupted", ["--run-id", "remote-interrupted"]);
    for (const id of ["case_01", "case_02"]) await writeFile(path.join(running.release, id), "");
    await running.until("the second case finished and the third started", () => /cases 2\/4/.test(running.stderr()) && started(running.log).includes("started case_03"));
    running.child.kill("SIGINT");
    await running.until("it said it is stopping", () => /SIGINT: stopping run remote-interrupted/.test(running.stderr()));
    await writeFile(path.join(running.release, "case_03"), "");
    assert.equal(await running.exited, 130, `${running.stdout()}\n${running.stderr()}`);
    assert.deepEqual(started(running.log), ["started case_01", "started case_02", "started case_03"]);
    assert.match(running.stdout(), /Could not decide: run remote-interrupted was interrupted \(SIGINT\): 3 of 4 cases ran and 3 are stored/);
    // serve says so to its readers while it runs (its store is read back below, once it is stopped).
    const answer = await fetch(`${readApiUrl}/api/runs/remote-interrupted/lineage`, { headers: { Authorization: `Bearer ${OPERATOR_TOKEN}` } });
    assert.deepEqual(((await answer.json()) as { lineage: { completion: unknown } }).lineage.completion, { status: "interrupted", planned_cases: 4, stored_cases: 3 });
  });

  test("cases serve holds with other content, or not at all: refused before any case runs (exit 2), naming cases, fields and the fix", async () => {
    const other = path.join(folder, "changed.json");
    // case_02 as stored; case_01 with another input and reference answer (same id and version); case_99 never loaded.
    await writeFile(
      other,
      JSON.stringify({
        dataset_id: "qa_toy",
        dataset_version: "v2",
        cases: [
          { case_id: "case_01", case_version: "1", input: "What does case_01 ask now?", reference_answer: "Another answer." },
          { case_id: "case_02", case_version: "1", input: "What does case_02 ask?", reference_answer: "The answer to case_02." },
          { case_id: "case_99", case_version: "1", input: "A question serve never saw." },
        ],
      }),
    );
    const running = await startEval("changed", ["--run-id", "remote-changed"], other);
    assert.equal(await running.exited, 2, `${running.stdout()}\n${running.stderr()}`);
    const lines = running.stderr().trim().split("\n");
    assert.match(lines[0]!, /changed\.json: case case_01, case_version 1, differs in input, reference_answer from the case of that id and version the collector at .* holds \(stored from dataset qa_toy version v1\): .*give the changed case a new case_version and load it with ragscope dataset push .*changed\.json/);
    assert.match(lines[1]!, /changed\.json: 1 case\(s\) are not stored in the collector at .*: case_99@1; .*ragscope dataset push .*changed\.json/);
    assert.match(lines[2]!, /^ragscope eval: nothing was run/);
    assert.equal(lines.length, 3, running.stderr());
    assert.deepEqual(started(running.log), [], "no case ran");
    // Nor was the run recorded in serve's store: its id holds nothing.
    const lineage = await fetch(`${readApiUrl}/api/runs/remote-changed/lineage`, { headers: { Authorization: `Bearer ${OPERATOR_TOKEN}` } });
    assert.deepEqual(await lineage.json(), { lineage: null });
  });

  /** POST /api/cases/compare with the field digests of these cases (each parsed as a dataset file's case is). */
  async function compare(token: string, cases: Record<string, unknown>[]) {
    const body = { cases: cases.map((item) => ({ case_id: item.case_id, case_version: item.case_version, fields: digestCaseFields(evalCaseSchema.parse({ dataset_id: "any", dataset_version: "1", ...item })) })) };
    const answer = await fetch(`${readApiUrl}/api/cases/compare`, { method: "POST", headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" }, body: JSON.stringify(body) });
    const text = await answer.text();
    assert.equal(answer.status, 200, text);
    return { text, cases: (JSON.parse(text) as { cases: { stored: boolean; differing_fields?: string[] }[] }).cases };
  }

  test("a reader of every tenant cannot read a blind case's gold through the read API: the cases are compared by digest and answered with field names", async () => {
    // The stored case itself is not served by id any more (it was, to every reader of all tenants).
    const byId = await fetch(`${readApiUrl}/api/cases?case_id=case_blind&case_version=1`, { headers: { Authorization: `Bearer ${OPERATOR_TOKEN}` } });
    const byIdText = await byId.text();
    assert.equal(byId.status, 404, byIdText);
    assert.ok(!byIdText.includes(BLIND_GOLD_CHUNK) && !byIdText.includes(BLIND_GOLD_ANSWER), byIdText);

    const guess = { ...BLIND_CASE, reference_answer: "A guess.", gold_evidence: [{ document_id: "doc-blind", chunk_id: "chunk-guess" }] };
    // One gold value right (the chunk id), another wrong: answered as both wrong, so guesses cannot be confirmed one value at a time.
    const halfRight = { ...BLIND_CASE, reference_answer: "A guess." };
    // What the case is graded by is gold too: a guess of its expected behaviour or of one rubric rule is not confirmed alone either.
    const criteriaGuesses = [{ ...BLIND_CASE, expected_behavior: ["Say 5521."] }, { ...BLIND_CASE, rubric: { answer_correctness: "Must say 5521." } }, { ...BLIND_CASE, context_policy: "Newest only." }];
    const compared = await compare(OPERATOR_TOKEN, [guess, halfRight, { ...guess, title: "Another title" }, BLIND_CASE, ...criteriaGuesses]);
    const blindGold =
      "its gold data (reference_answer, gold_evidence, key_points, evaluator_config.required_evidence, expected_behavior, negative_behavior, rubric, citation_requirement, context_policy, metadata.relevant_document_ids, compared together for a blind case)";
    const answered = (differing_fields: string[]) => ({ case_id: "case_blind", case_version: "1", stored: true, dataset_id: "qa_toy", dataset_version: "v1", differing_fields });
    assert.deepEqual(compared.cases, [answered([blindGold]), answered([blindGold]), answered(["title", blindGold]), answered([]), answered([blindGold]), answered([blindGold]), answered([blindGold])]);
    // Neither the gold nor a digest of any stored value is in the answer (a digest of a short value is undone by guessing).
    assert.ok(!compared.text.includes(BLIND_GOLD_CHUNK) && !compared.text.includes(BLIND_GOLD_ANSWER), compared.text);
    assert.doesNotMatch(compared.text, /[0-9a-f]{64}/);

    // A body that is not the contract's is 400 naming what is wrong, not a 500 or an empty answer.
    const malformed = await fetch(`${readApiUrl}/api/cases/compare`, { method: "POST", headers: { Authorization: `Bearer ${OPERATOR_TOKEN}`, "Content-Type": "application/json" }, body: JSON.stringify({ cases: [{ case_id: "case_blind", fields: {} }] }) });
    assert.equal(malformed.status, 400);
    assert.match(((await malformed.json()) as { error: string }).error, /^cases\.0\.case_version: .*; send \{"cases": /);
  });

  test("a reviewer token limited to one tenant reads only the Eval Cases its traces would use, and records a run's lineage as its tenant's only", async () => {
    const stored = async (token: string, caseId: string) => (await compare(token, [{ case_id: caseId, case_version: "1", input: "?" }])).cases[0]!.stored;
    assert.equal(await stored(TENANT_TOKEN, "case_01"), true, "a case that names no tenant is every tenant's");
    assert.equal(await stored(TENANT_TOKEN, "case_globex"), false, "another tenant's case reads as not stored");
    assert.equal(await stored(OPERATOR_TOKEN, "case_globex"), true);

    const body = JSON.stringify({ run_id: "remote-whole", started_at: "2026-01-01T00:00:00.000Z", completion: { status: "complete", planned_cases: 1, stored_cases: 1 } });
    const put = (query: string) => fetch(`${readApiUrl}/api/runs/remote-whole/lineage${query}`, { method: "PUT", headers: { Authorization: `Bearer ${TENANT_TOKEN}`, "Content-Type": "application/json" }, body });
    const asGlobex = await put("?tenant=globex");
    assert.equal(asGlobex.status, 403);
    assert.match(((await asGlobex.json()) as { error: string }).error, /this token reads tenant "acme", so it may record a run as one of those tenants only, not as tenant "globex"/);
    const own = await put("");
    assert.equal(own.status, 200, await own.text());
    const lineageAs = async (token: string) => ((await (await fetch(`${readApiUrl}/api/runs/remote-whole/lineage`, { headers: { Authorization: `Bearer ${token}` } })).json()) as { lineage: { started_at: string; prompt_version: string | null } }).lineage;
    assert.equal((await lineageAs(TENANT_TOKEN)).started_at, "2026-01-01T00:00:00.000Z", "acme reads its own record");
    // The operator reads the eval's record (recorded without a tenant), not acme's newer one.
    assert.equal((await lineageAs(OPERATOR_TOKEN)).prompt_version, "prompt-7");
  });

  test("serve's store, once serve is stopped: the lineage of both runs, in the report's Runs board, and gate refuses the interrupted one (exit 2)", async () => {
    await stopServe();
    const gate = await runRagscope(["gate", "--run", "remote-interrupted", "--data-dir", serveStore]);
    assert.equal(gate.status, 2, gate.stdout + gate.stderr);
    assert.match(gate.stderr, /^ragscope gate: run remote-interrupted was interrupted: 3 of 4 cases stored; /);
    const whole = await runRagscope(["gate", "--run", "remote-whole", "--data-dir", serveStore]);
    assert.doesNotMatch(whole.stderr, /interrupted|has not finished/);
    assert.match(whole.stdout, /remote-whole/);

    // The report's Runs board compares the two runs' lineage (dashboards/source/runs-dashboard.ts): the versions the
    // whole run was given with --lineage are in it only when serve's store holds that run's lineage.
    const reportFile = path.join(folder, "report.html");
    const report = await runRagscope(["report", "--data-dir", serveStore, "--baseline", "remote-interrupted", "--candidate", "remote-whole", "--out", reportFile]);
    assert.equal(report.status, 0, report.stdout + report.stderr);
    const html = await readFile(reportFile, "utf8");
    assert.match(html, /prompt-7/);
    assert.match(html, /corpus-2/);

    const connection = await openClickHouse({ url: null, username: "default", password: "", database: "ragscope", dataPath: serveStore });
    try {
      const lineageOf = async (runId: string) => {
        const [row] = await queryRows<{ payload: string }>(connection, "SELECT payload FROM {{database}}.runs FINAL WHERE run_id = {runId:String} AND tenant_id = ''", { runId });
        return row === undefined ? undefined : (JSON.parse(row.payload) as Record<string, unknown>);
      };
      const wholeLineage = await lineageOf("remote-whole");
      assert.equal(wholeLineage?.prompt_version, "prompt-7");
      assert.equal(wholeLineage?.corpus_version, "corpus-2");
      assert.equal(wholeLineage?.dataset_id, "qa_toy");
      assert.deepEqual(wholeLineage?.completion, { status: "complete", planned_cases: 4, stored_cases: 4 });
      // The tenant token's write above changed nothing of the eval's record (tenant ''): it is acme's own, beside it.
      assert.notEqual(wholeLineage?.started_at, "2026-01-01T00:00:00.000Z");
      assert.deepEqual((await lineageOf("remote-interrupted"))?.completion, { status: "interrupted", planned_cases: 4, stored_cases: 3 });
      assert.equal(await lineageOf("remote-changed"), undefined);
      const [acme] = await queryRows<{ payload: string }>(connection, "SELECT payload FROM {{database}}.runs FINAL WHERE run_id = 'remote-whole' AND tenant_id = 'acme'");
      assert.equal((JSON.parse(acme!.payload) as { started_at: string }).started_at, "2026-01-01T00:00:00.000Z");
    } finally {
      await connection.close();
    }
  });
});
