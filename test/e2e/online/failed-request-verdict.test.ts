/**
 * Online requests that went wrong, as a user meets them: `ragscope serve` as
 * a subprocess, an application instrumented with the SDK's stage wrappers
 * (the package resolved by name, exporting OTLP to serve), the results read
 * back through serve's read API.
 *
 * - The reranker's backend is down: traceRerank's callback throws, the
 *   application catches it and answers nothing. README "Verdicts": a request
 *   whose task threw is a failed case — never `passed` because a check of
 *   what it recorded before the throw held. Its root cause is its execution
 *   error type (seed 000 execution_error.type system_error), naming the stage.
 * - An answer with a made-up fact that cites a chunk the context never held:
 *   citation_validity = 0 (the rule that fails the request) decides the root
 *   cause, CITATION_ERROR; the overlap heuristic, which finds the made-up
 *   claim unsupported (heuristic_groundedness 0), is a measurement and
 *   decides nothing.
 * - performance.usage names no span as evidence (evidence refs name chunks).
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { runApplication, writeApplication } from "../../support/application-beside-package.js";
import { startServeWithUi, type ServeWithUi } from "../../support/serve-with-ui.js";

/** A bound on waiting for serve to store the traces; generous for a shared machine, not an assertion on speed. */
const WAIT_MS = 60_000;

const APP = `
import { setupRagscope, traceRequest, traceRetrieve, traceRerank, traceContext, traceGenerate, traceCite } from "ragscope/instrumentation";

const ragscope = setupRagscope({ serviceName: "toy-rag" });
const refund = { chunkId: "refund-1", documentId: "refund-policy", text: "Refunds reach the original payment method within 7 days." };
const points = { chunkId: "points-1", documentId: "member-points", text: "Member points expire 12 months after they are earned." };
const shipping = { chunkId: "ship-1", documentId: "shipping", text: "Standard shipping costs five dollars." };

try {
  await traceRequest({ query: "How fast is a refund?" }, async () => {
    const retrieved = await traceRetrieve({ query: "How fast is a refund?", topK: 2 }, () => [refund, points]);
    await traceRerank({ query: "How fast is a refund?", input: retrieved, topK: 2 }, () => {
      throw new Error("reranker backend unavailable (HTTP 503)");
    });
  });
} catch (error) {
  console.log("no answer:", error.message);
}

await traceRequest({ query: "What does express shipping cost?" }, async () => {
  const retrieved = await traceRetrieve({ query: "What does express shipping cost?", topK: 1 }, () => [shipping]);
  await traceContext({ tokenBudget: 2000 }, () => ({ text: retrieved[0].text, chunkIds: ["ship-1"] }));
  const generation = await traceGenerate({ model: "toy-model" }, () => ({ text: "Express shipping costs 40 dollars and arrives by drone.", inputTokens: 30, outputTokens: 12 }));
  await traceCite(() => ["ship-9"]);
  return generation.text;
});

await ragscope.shutdown();
`;

interface Evaluation {
  evaluator_id: string;
  outcome: string;
  reason: string;
  metric_values: Record<string, number | null>;
  evidence_refs: string[];
}

interface Listed {
  traces: { caseResultId: string; query: string; qualityStatus: string; rootCause: string | null }[];
}

let folder: string;
let serve: ServeWithUi | undefined;

before(async () => {
  folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-failed-request-"));
  await writeApplication(folder, "app.mjs", APP);
  serve = await startServeWithUi(path.join(folder, "data"), { RAGSCOPE_QUIET_PERIOD_MS: "200" });
});

after(async () => {
  if (serve !== undefined && serve.child.exitCode === null) {
    serve.child.kill("SIGTERM");
    await serve.exited;
  }
  await rm(folder, { recursive: true, force: true });
});


async function listTraces(query: string): Promise<Listed> {
  return (await (await fetch(`${serve!.uiUrl}/api/traces?limit=10${query}`)).json()) as Listed;
}

async function storedTraces(count: number): Promise<Listed["traces"]> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const listed = await listTraces("");
    if (listed.traces.length >= count || Date.now() > deadline) return listed.traces;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

test("a request whose reranker threw is failed with a SYSTEM_ERROR root cause; a citation outside the context is CITATION_ERROR, not the heuristic's HALLUCINATION", async () => {
  const receiver = /OTLP\/HTTP on (http:\/\/[^/\s]+)\/v1\/traces/.exec(serve!.output())?.[1];
  assert.ok(receiver, serve!.output());
  const ran = await runApplication(folder, "app.mjs", receiver);
  assert.equal(ran.code, 0, ran.output);
  assert.match(ran.output, /no answer: reranker backend unavailable \(HTTP 503\)/);

  const traces = await storedTraces(2);
  const crashed = traces.find((trace) => trace.query === "How fast is a refund?");
  const cited = traces.find((trace) => trace.query === "What does express shipping cost?");
  assert.ok(crashed && cited, JSON.stringify(traces));

  const detail = async (id: string) => (await (await fetch(`${serve!.uiUrl}/api/traces/${id}`)).json()) as { caseResult: { quality_status: string; execution_status: string; output: string | null }; evaluationResults: Evaluation[] };
  const crash = await detail(crashed.caseResultId);
  assert.deepEqual([crash.caseResult.execution_status, crash.caseResult.output, crash.caseResult.quality_status], ["failed", null, "failed"]);
  const rootCause = crash.evaluationResults.find((item) => item.evaluator_id === "root_cause");
  assert.equal(rootCause?.reason, "SYSTEM_ERROR: the request did not complete (system_error in rag.rerank): reranker backend unavailable (HTTP 503)");
  const usage = crash.evaluationResults.find((item) => item.evaluator_id === "performance.usage")!;
  assert.deepEqual(usage.evidence_refs, []);

  const answered = await detail(cited.caseResultId);
  assert.equal(answered.caseResult.quality_status, "failed");
  const validity = answered.evaluationResults.find((item) => item.evaluator_id === "citation.accuracy")!;
  assert.deepEqual([validity.outcome, validity.metric_values.citation_validity], ["failed", 0]);
  // One claim, "Express shipping costs 40 dollars and arrives by drone": its 40 is nowhere in the context, so 0 of 1.
  assert.equal(answered.evaluationResults.find((item) => item.evaluator_id === "online.groundedness")!.metric_values.heuristic_groundedness, 0);
  assert.equal(answered.evaluationResults.find((item) => item.evaluator_id === "root_cause")?.reason, "CITATION_ERROR: failed: citation.accuracy [citation_validity=0]");

  // The verdict filter the trace list offers: neither request is listed as passed; both as failed, with their labels.
  assert.deepEqual((await listTraces("&verdict=passed")).traces, []);
  const failed = (await listTraces("&verdict=failed")).traces;
  assert.deepEqual(failed.map((trace) => [trace.query, trace.rootCause]).sort(), [
    ["How fast is a refund?", "SYSTEM_ERROR"],
    ["What does express shipping cost?", "CITATION_ERROR"],
  ]);

  serve!.child.kill("SIGTERM");
  assert.equal(await serve!.exited, 0, serve!.output());
});
