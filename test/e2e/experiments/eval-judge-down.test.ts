/**
 * A judge that is down decides nothing: every judge call of the run errors
 * (nothing listening on the judge's port; an endpoint answering 401), so the
 * judged gate rules read ERROR with their error counts — not N/A, which
 * --allow-missing allows — the gate is never PASSED, and both `ragscope eval`
 * and `ragscope gate` exit 2 (could not decide, README "Exit codes"). eval
 * prints a one-line judge summary. A judge that declines one case of two
 * (the one it finds hardest) leaves the rule undecided too: the other case's
 * value cannot stand for the run. The CLI runs as a subprocess; the judge
 * endpoint is a local fake.
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { parse as parseYaml } from "yaml";
import { reply, startFakeChatCompletionsServer, type FakeChatCompletionsServer } from "../../support/fake-chat-completions-server.js";
import { projectRoot, runRagscope } from "./support/run-ragscope.js";

let folder: string;
let dataset: string;
let gates: string;
let unauthorized: FakeChatCompletionsServer;

/** A port nothing listens on: one the system gave out and took back. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

before(async () => {
  folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-judge-down-"));
  const source = parseYaml(await readFile(path.join(projectRoot, "examples/datasets/policy-regression.yaml"), "utf8"), { maxAliasCount: -1 }) as { dataset_id: string; dataset_version: string; cases: { case_id: string }[] };
  dataset = path.join(folder, "one-case.json");
  await writeFile(dataset, JSON.stringify({ dataset_id: source.dataset_id, dataset_version: source.dataset_version, cases: source.cases.filter((item) => item.case_id === "rag_return_window_en_001") }));
  // A rule the run passes without a judge beside the judged one: only the judge's errors keep the gate from passing.
  gates = path.join(folder, "gates.yaml");
  await writeFile(gates, 'retrieval:\n  recall_at_5: ">= 0.5"\ngeneration:\n  faithfulness: ">= 0.92"\n');
  unauthorized = await startFakeChatCompletionsServer();
  unauthorized.respondWith(() => reply.status(401, { body: { error: { message: "Incorrect API key provided", type: "invalid_request_error", code: "invalid_api_key" } } }));
});
after(async () => {
  await unauthorized.close();
  await rm(folder, { recursive: true, force: true });
});

const ERROR_LINE = /ERROR\s+generation\.faithfulness\s+—\s+>= 0\.92\s+\(faithfulness could not be measured on every case: its evaluation errored on 1 of 1 case\(s\) — http_error: 1;/;

for (const scenario of [
  { name: "nothing listening on the judge's port", endpoint: async () => `http://127.0.0.1:${await closedPort()}/v1` },
  { name: "the judge answers 401", endpoint: async () => unauthorized.baseUrl },
]) {
  test(`${scenario.name}: eval and gate --allow-missing say ERROR and exit 2, never PASSED`, async () => {
    const runId = `judge-down-${scenario.name.includes("401") ? "401" : "refused"}`;
    const store = path.join(folder, `store-${runId}`);
    const environment = { RAGSCOPE_JUDGE_BASE_URL: await scenario.endpoint(), RAGSCOPE_JUDGE_MODEL: "scripted-judge", RAGSCOPE_JUDGE_API_KEY: "sk-test", RAGSCOPE_JUDGE_METRICS: "faithfulness", RAGSCOPE_JUDGE_TIMEOUT_MS: "5000" };
    const output = path.join(folder, `${runId}.json`);
    const evaluated = await runRagscope(["eval", "--dataset", dataset, "--task", "examples/policy-assistant/eval-task.ts", "--gates", gates, "--data-dir", store, "--run-id", runId, "--allow-missing", "--output", output], environment);
    const evalText = `${evaluated.stdout}\n${evaluated.stderr}`;
    assert.equal(evaluated.status, 2, evalText);
    assert.match(evaluated.stdout, ERROR_LINE, evalText);
    assert.match(evaluated.stdout, /^Judge: 1 call, 1 grader error \(http_error: 1\)$/m, evalText);
    assert.match(evaluated.stdout, /^Release gate: UNDECIDED — 1 passed, 0 failed, 0 not measured, 1 errored/m, evalText);
    assert.match(evaluated.stdout, /Could not decide: 1 of 1 judge calls failed \(http_error: 1\)/, evalText);
    assert.match(evaluated.stdout, /^Decision: UNDECIDED$/m, evalText);
    assert.doesNotMatch(evalText, /PASSED/, evalText);
    const document = JSON.parse(await readFile(output, "utf8")) as { decision: string; judge: { calls: number; grader_errors: number; grader_errors_by_type: Record<string, number> }; gate: { passed: boolean; rules: { metric: string; status: string; errors?: Record<string, number> }[] } };
    assert.equal(document.decision, "undecided");
    assert.deepEqual(document.judge.grader_errors_by_type, { http_error: 1 });
    assert.equal(document.gate.passed, false);
    assert.deepEqual(document.gate.rules.find((rule) => rule.metric === "faithfulness"), { ...document.gate.rules.find((rule) => rule.metric === "faithfulness"), status: "error", errors: { http_error: 1 } });

    const gated = await runRagscope(["gate", "--run", runId, "--gates", gates, "--data-dir", store, "--allow-missing"]);
    const gateText = `${gated.stdout}\n${gated.stderr}`;
    assert.equal(gated.status, 2, gateText);
    assert.match(gated.stdout, ERROR_LINE, gateText);
    assert.match(gated.stdout, new RegExp(`Release gate for run ${runId} \\(1 cases\\): UNDECIDED`), gateText);
    assert.doesNotMatch(gateText, /PASSED/, gateText);
  });
}

test("a judge that declines one case of two: the rule is ERROR (1 of 2 errored), not a pass on the other case's value; eval and gate exit 2", async () => {
  const judge = await startFakeChatCompletionsServer();
  try {
    // Every claim supported (faithfulness 1, above 0.92) for one case; the other, the shipping question, declined.
    judge.respondWith((request) =>
      (request.user.includes("包邮") || request.system.includes("包邮")) ? reply.json({ cannot_judge: true, reason: "cannot tell" }) : reply.json({ claims: [{ claim: "the answer's statement", supported: true, documents: ["D1"] }], reason: "stated by the context" }),
    );
    const source = parseYaml(await readFile(path.join(projectRoot, "examples/datasets/policy-regression.yaml"), "utf8"), { maxAliasCount: -1 }) as { dataset_id: string; dataset_version: string; cases: { case_id: string }[] };
    const twoCases = path.join(folder, "two-cases.json");
    await writeFile(twoCases, JSON.stringify({ dataset_id: source.dataset_id, dataset_version: source.dataset_version, cases: source.cases.filter((item) => ["rag_return_window_en_001", "rag_shipping_free_threshold_001"].includes(item.case_id)) }));
    const store = path.join(folder, "store-one-declined");
    const environment = { RAGSCOPE_JUDGE_BASE_URL: judge.baseUrl, RAGSCOPE_JUDGE_MODEL: "scripted-judge", RAGSCOPE_JUDGE_API_KEY: "sk-test", RAGSCOPE_JUDGE_METRICS: "faithfulness", RAGSCOPE_JUDGE_TIMEOUT_MS: "5000" };
    const evaluated = await runRagscope(["eval", "--dataset", twoCases, "--task", "examples/policy-assistant/eval-task.ts", "--gates", gates, "--data-dir", store, "--run-id", "one-declined", "--allow-missing"], environment);
    const evalText = `${evaluated.stdout}\n${evaluated.stderr}`;
    assert.equal(evaluated.status, 2, evalText);
    const partial = /ERROR\s+generation\.faithfulness\s+—\s+>= 0\.92\s+\(faithfulness could not be measured on every case: its evaluation errored on 1 of 2 case\(s\) \(1 measured\) — refusal: 1;/;
    assert.match(evaluated.stdout, partial, evalText);
    // The hard thresholds beside the overall score hold the same line: not a pass on the other case's value.
    assert.match(evaluated.stdout, /^\s+ERROR\s+faithfulness\s+—\s+>= 0\.90\s+\(its evaluation errored on 1 case\(s\) — refusal: 1; a grader error is never a pass \(check the judge: RAGSCOPE_JUDGE_BASE_URL, its key and model\)\)$/m, evalText);
    assert.doesNotMatch(evalText, /PASSED/, evalText);
    const gated = await runRagscope(["gate", "--run", "one-declined", "--gates", gates, "--data-dir", store, "--allow-missing"]);
    assert.equal(gated.status, 2, `${gated.stdout}\n${gated.stderr}`);
    assert.match(gated.stdout, partial);
    assert.match(gated.stdout, /UNDECIDED — 1 passed, 0 failed, 0 not measured, 1 errored/);
  } finally {
    await judge.close();
  }
});

test("a gate whose rules read BLOCKED on a run whose judge failed: the decision line says the run's problems leave it undecided", async () => {
  // answer_correctness is not judged here (RAGSCOPE_JUDGE_METRICS), so its rule is not measured and the gate's rules block;
  // the judge's failed calls are a problem of the run, which leaves the decision undecided (exit 2).
  const blockingGates = path.join(folder, "blocking-gates.yaml");
  await writeFile(blockingGates, 'retrieval:\n  recall_at_5: ">= 0.5"\ngeneration:\n  answer_correctness: ">= 0.9"\n');
  const environment = { RAGSCOPE_JUDGE_BASE_URL: unauthorized.baseUrl, RAGSCOPE_JUDGE_MODEL: "scripted-judge", RAGSCOPE_JUDGE_API_KEY: "sk-test", RAGSCOPE_JUDGE_METRICS: "faithfulness", RAGSCOPE_JUDGE_TIMEOUT_MS: "5000" };
  const evaluated = await runRagscope(["eval", "--dataset", dataset, "--task", "examples/policy-assistant/eval-task.ts", "--gates", blockingGates, "--data-dir", path.join(folder, "store-blocking"), "--run-id", "blocking-rules"], environment);
  const evalText = `${evaluated.stdout}\n${evaluated.stderr}`;
  assert.equal(evaluated.status, 2, evalText);
  assert.match(evaluated.stdout, /^Release gate: BLOCKED — 1 passed, 0 failed, 1 not measured/m, evalText);
  assert.match(evaluated.stdout, /^Decision: UNDECIDED \(the gate's rules read BLOCKED, but the problems above leave the run undecided\)$/m, evalText);
});

test("a judge that ran but gave a metric no value: the gate names why (no key points; not among RAGSCOPE_JUDGE_METRICS), not 'configure an LLM judge'", async () => {
  const judge = await startFakeChatCompletionsServer();
  try {
    judge.respondWith(() => reply.json({ claims: [{ claim: "the answer's statement", supported: true, documents: ["D1"] }], reason: "stated by the context" }));
    const source = parseYaml(await readFile(path.join(projectRoot, "examples/datasets/policy-regression.yaml"), "utf8"), { maxAliasCount: -1 }) as { dataset_id: string; dataset_version: string; cases: { case_id: string; key_points?: unknown }[] };
    // The case without its key points: completeness_judged applies to no case.
    const withoutKeyPoints = source.cases.filter((item) => item.case_id === "rag_return_window_en_001").map(({ key_points: _keyPoints, ...item }) => item);
    const file = path.join(folder, "no-key-points.json");
    await writeFile(file, JSON.stringify({ dataset_id: source.dataset_id, dataset_version: source.dataset_version, cases: withoutKeyPoints }));
    const judgedGates = path.join(folder, "judged-gates.yaml");
    await writeFile(judgedGates, 'generation:\n  faithfulness: ">= 0.9"\n  completeness_judged: ">= 0.8"\n  answer_correctness: ">= 0.8"\n  completeness: ">= 0.8"\n');
    const environment = { RAGSCOPE_JUDGE_BASE_URL: judge.baseUrl, RAGSCOPE_JUDGE_MODEL: "scripted-judge", RAGSCOPE_JUDGE_API_KEY: "sk-test", RAGSCOPE_JUDGE_METRICS: "faithfulness,completeness_judged", RAGSCOPE_JUDGE_TIMEOUT_MS: "5000" };
    const evaluated = await runRagscope(["eval", "--dataset", file, "--task", "examples/policy-assistant/eval-task.ts", "--gates", judgedGates, "--data-dir", path.join(folder, "store-judge-ran"), "--run-id", "judge-ran"], environment);
    const evalText = `${evaluated.stdout}\n${evaluated.stderr}`;
    assert.match(evaluated.stdout, /PASS\s+generation\.faithfulness\s+1\s/, evalText);
    assert.match(evaluated.stdout, /N\/A\s+generation\.completeness_judged .*a language-model judge ran, but completeness_judged applies to none of the 1 case\(s\) \(the case has no key points: 1 of 1\)/, evalText);
    assert.match(evaluated.stdout, /N\/A\s+generation\.answer_correctness .*a language-model judge ran, but did not score answer_correctness on the 1 case\(s\) it applies to — check that RAGSCOPE_JUDGE_METRICS/, evalText);
    // The heuristic completeness rule reads completeness_judged when a judge scores it: it says why the judge did not.
    assert.match(evaluated.stdout, /N\/A\s+generation\.completeness .*it reads completeness_judged when an LLM judge scores it, and a language-model judge ran, but completeness_judged applies to none of the 1 case\(s\) \(the case has no key points: 1 of 1\)/, evalText);
    assert.doesNotMatch(evaluated.stdout, /generation\.(completeness_judged|answer_correctness|completeness) .*configure an LLM judge/, evalText);
  } finally {
    await judge.close();
  }
});
