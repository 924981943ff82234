/**
 * A ragscope-instrumented application retrieves hundreds of chunks (top-k 300,
 * and 1,000 reranked to 300) and exports them with the SDK over OTLP/HTTP to a
 * real `ragscope serve`: every chunk reaches the stored Case Result. The SDK
 * writes 12 attributes a chunk on one span; it used to raise OTel's attribute
 * limit to 4,096 while the receiver refused (413) a whole request holding a
 * span of more than 1,024 attributes, so any retrieval past ~85 chunks lost
 * its batch, and one past ~340 its last chunks in the SDK, without a word. Both
 * now take SPAN_ATTRIBUTE_COUNT_LIMIT (contracts/span-attributes.ts).
 *
 * The application is a separate Node process running the compiled SDK
 * (dist/instrumentation, as installed), serve a child process (its store read
 * once it stopped).
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { caseResult as caseResultSchema, type CaseResult } from "../../contracts/case-result.js";
import { SPAN_ATTRIBUTE_COUNT_LIMIT } from "../../contracts/span-attributes.js";
import { startCollectorSubprocess, type CollectorSubprocess } from "../support/collector-subprocess.js";
import { queryRows } from "../support/temporary-store.js";

const projectRoot = fileURLToPath(new URL("../../", import.meta.url));
const sdk = new URL("../../dist/instrumentation/index.js", import.meta.url).href;

/**
 * The application: two requests, a retrieval of 300 chunks and one of 1,000 reranked to 300, each chunk with every
 * field the SDK records (12 attributes) and its text. Prints the SDK's export statistics and instrumentation errors.
 */
const application = `
import { setupRagscope, traceRequest, traceRetrieve, traceRerank, instrumentationErrors } from ${JSON.stringify(sdk)};
const ragscope = setupRagscope({ endpoint: process.env.RECEIVER, serviceName: "large-retrieval", captureText: true });
const chunks = (prefix, count) => Array.from({ length: count }, (_, index) => ({
  chunkId: prefix + "-" + index, documentId: "handbook-" + (index % 40), documentVersion: "v3", sectionId: "section-" + index,
  text: "Chunk " + index + " of the employee handbook: leave accrues monthly and carries over up to five days.",
  score: 1 - index / count, effectiveFrom: "2026-01-01", effectiveTo: "2027-01-01", acl: ["staff"], tenantId: "acme",
}));
await traceRequest({ query: "How much leave carries over? (top 300)" }, async () => {
  await traceRetrieve({ query: "leave carry-over", topK: 300, retriever: "dense" }, () => chunks("top300", 300));
  return "Up to five days.";
});
await traceRequest({ query: "How much leave carries over? (1,000 reranked to 300)" }, async () => {
  const retrieved = await traceRetrieve({ query: "leave carry-over", topK: 1000, retriever: "dense" }, () => chunks("wide", 1000));
  await traceRerank({ query: "leave carry-over", input: retrieved, model: "rerank-small", topK: 300 }, () => retrieved.slice(0, 300));
  return "Up to five days.";
});
await ragscope.shutdown();
console.log(JSON.stringify({ statistics: ragscope.statistics(), instrumentationErrors: instrumentationErrors() }));
`;

function runApplication(receiver: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--input-type=module", "-e", application], { cwd: projectRoot, env: { ...process.env, RECEIVER: receiver } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (part: Buffer) => (stdout += part.toString()));
    child.stderr.on("data", (part: Buffer) => (stderr += part.toString()));
    // Bounded: an application that hangs is killed, and the test fails on its exit code.
    const timer = setTimeout(() => child.kill("SIGKILL"), 120_000);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe("a retrieval of hundreds of chunks, SDK to serve", () => {
  let collector: CollectorSubprocess;
  let results: CaseResult[] = [];
  let run: { code: number | null; stdout: string; stderr: string };

  before(async () => {
    // serve's defaults: the receiver's attribute bound is the one under test.
    collector = await startCollectorSubprocess({});
    run = await runApplication(collector.receiverUrl);
    assert.equal(await collector.stop(), 0, collector.output().slice(-4000));
    const connection = await collector.openStore();
    try {
      const rows = await queryRows<{ payload: string }>(connection, "SELECT payload FROM {{database}}.case_results FINAL");
      results = rows.map((row) => caseResultSchema.parse(JSON.parse(row.payload)));
    } finally {
      await connection.close();
    }
  });
  after(async () => {
    await collector.stop();
    await collector.remove();
  });

  test("the SDK exported every span and reported no problem: nothing refused, nothing dropped past an attribute limit", () => {
    assert.equal(run.code, 0, run.stderr);
    const { statistics, instrumentationErrors } = JSON.parse(run.stdout.trim().split("\n").at(-1)!) as { statistics: { exported: number; failed: number; droppedQueueFull: number }; instrumentationErrors: number };
    assert.deepEqual({ exported: statistics.exported, failed: statistics.failed, droppedQueueFull: statistics.droppedQueueFull, instrumentationErrors }, { exported: 5, failed: 0, droppedQueueFull: 0, instrumentationErrors: 0 });
    assert.doesNotMatch(run.stderr, /413|RAGSCOPE_MAX_ATTRIBUTES_PER_SPAN|dropped/, run.stderr);
    assert.ok(1_300 * 12 < SPAN_ATTRIBUTE_COUNT_LIMIT, "the rerank span's 1,300 chunks fit the shared bound");
  });

  test("a retrieval of 300 chunks: all 300 in the Case Result, in order, with their fields", () => {
    const result = results.find((item) => (item.rag_observation.query ?? "").includes("top 300"));
    assert.ok(result !== undefined, `stored: ${results.map((item) => item.rag_observation.query).join(", ")}`);
    const chunks = result.rag_observation.retrieved_chunks ?? [];
    assert.deepEqual(chunks.map((chunk) => chunk.chunk_id), Array.from({ length: 300 }, (_, index) => `top300-${index}`));
    assert.deepEqual(chunks.map((chunk) => chunk.rank), Array.from({ length: 300 }, (_, index) => index + 1));
    const last = chunks.at(-1)!;
    assert.equal(last.document_id, "handbook-19");
    assert.equal(last.document_version, "v3");
    assert.match(last.text ?? "", /^Chunk 299 of the employee handbook/);
    assert.deepEqual(result.rag_observation.malformed_attributes, []);
  });

  test("1,000 chunks reranked to 300: the 1,000 before the rerank and the 300 after, every one", () => {
    const result = results.find((item) => (item.rag_observation.query ?? "").includes("1,000 reranked"));
    assert.ok(result !== undefined, `stored: ${results.map((item) => item.rag_observation.query).join(", ")}`);
    assert.deepEqual((result.rag_observation.pre_rerank_chunks ?? []).map((chunk) => chunk.chunk_id), Array.from({ length: 1_000 }, (_, index) => `wide-${index}`));
    assert.deepEqual((result.rag_observation.retrieved_chunks ?? []).map((chunk) => chunk.chunk_id), Array.from({ length: 300 }, (_, index) => `wide-${index}`));
    assert.match(result.rag_observation.pre_rerank_chunks!.at(-1)!.text ?? "", /^Chunk 999 of the employee handbook/);
    assert.deepEqual(result.rag_observation.malformed_attributes, []);
  });
});
