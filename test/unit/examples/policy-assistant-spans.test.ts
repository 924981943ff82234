/**
 * The spans the policy assistant emits when a tracer provider is registered:
 * one rag.request with the five stage spans under it, carrying the chunks,
 * the packed and dropped context, the answer and the citations of the seed's
 * case (the data the collector rebuilds the Case Result from).
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { context, propagation, trace } from "@opentelemetry/api";
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { Ragscope } from "../../../contracts/span-attributes.js";
import { createPolicyAssistant, type PolicyAnswer } from "../../../examples/policy-assistant/create-policy-assistant.js";

const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
let result: PolicyAnswer;
let spans: ReadableSpan[];

function spanNamed(name: string): ReadableSpan {
  const matches = spans.filter((span) => span.name === name);
  assert.equal(matches.length, 1, `one ${name} span`);
  return matches[0]!;
}

before(async () => {
  provider.register();
  result = await createPolicyAssistant().answer("我用了优惠券只退一件商品，积分会扣回吗？", {
    runId: "run_rag_refund_20260708_001",
    caseId: "rag_refund_member_points_001",
    caseVersion: "v2",
    datasetId: "refund_rag_regression_set",
    datasetVersion: "v5",
    principalGroups: ["customer"],
    experimentId: "exp_prompt_v3",
    experimentVariant: "treatment",
  });
  spans = exporter.getFinishedSpans();
});

after(async () => {
  await provider.shutdown();
  trace.disable();
  context.disable();
  propagation.disable();
});

describe("policy assistant spans", () => {
  test("one request span with retrieve, context, generate and cite spans as children, no rerank by default", () => {
    const request = spanNamed("rag.request");
    for (const name of ["rag.retrieve", "rag.context", "rag.generate", "rag.cite"]) {
      const child = spanNamed(name);
      assert.equal(child.parentSpanContext?.spanId, request.spanContext().spanId, `${name} is a child of rag.request`);
      assert.equal(child.spanContext().traceId, request.spanContext().traceId);
    }
    assert.equal(spans.filter((span) => span.name === "rag.rerank").length, 0);
    assert.equal(result.traceId, request.spanContext().traceId, "the answer reports its trace id");
  });

  test("the request span links the run and the case and records the answer", () => {
    const attributes = spanNamed("rag.request").attributes;
    assert.equal(attributes[Ragscope.runId], "run_rag_refund_20260708_001");
    assert.equal(attributes[Ragscope.caseId], "rag_refund_member_points_001");
    assert.equal(attributes[Ragscope.caseVersion], "v2");
    assert.equal(attributes[Ragscope.tenantId], "acme_shop");
    assert.deepEqual(attributes[Ragscope.principalGroups], ["customer"]);
    // Every field of the SDK's request options reaches the span, the experiment's too (the assistant forwards them all).
    assert.equal(attributes[Ragscope.experimentId], "exp_prompt_v3");
    assert.equal(attributes[Ragscope.experimentVariant], "treatment");
    assert.equal(attributes[Ragscope.answer], "积分不会受影响，优惠券也会原路退回");
  });

  test("retrieval, context and citation spans carry the seed's observation", () => {
    const retrieve = spanNamed("rag.retrieve").attributes;
    assert.equal(retrieve["retrieval.documents.0.document.id"], "refund_general_01");
    assert.equal(retrieve["retrieval.documents.1.document.id"], "refund_member_points_02");
    assert.equal(retrieve["retrieval.documents.0.document.score"], result.retrieved[0]!.score);
    assert.equal(retrieve[`${Ragscope.documentsPrefix}.1.effective_from`], "2026-07-01");
    const contextAttributes = spanNamed("rag.context").attributes;
    assert.deepEqual(contextAttributes[Ragscope.contextChunkIds], ["refund_general_01"]);
    assert.equal((contextAttributes[Ragscope.contextDroppedChunkIds] as string[])[0], "refund_member_points_02");
    assert.equal(contextAttributes[Ragscope.contextTokenBudget], 34);
    assert.deepEqual(spanNamed("rag.cite").attributes[Ragscope.citationChunkIds], ["refund_general_01"]);
    const generate = spanNamed("rag.generate").attributes;
    assert.equal(generate["llm.token_count.prompt"], result.generation.inputTokens);
    assert.equal(generate["llm.cost.total"], result.generation.cost);
  });
});
