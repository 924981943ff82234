import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  configureRagscope,
  ragscopeConfiguration,
  traceContext,
  traceGenerate,
  traceRequest,
  traceRerank,
  traceRetrieve,
} from "../../../instrumentation/index.js";
import { spanNamed, startInMemoryTracing, type InMemoryTracing } from "./in-memory-tracing.js";

describe("captureText = false", () => {
  let tracing: InMemoryTracing;
  before(() => {
    tracing = startInMemoryTracing();
    configureRagscope({ captureText: false });
  });
  after(async () => {
    configureRagscope({ captureText: true });
    await tracing.stop();
  });

  test("drops chunk content, prompt, answer and context text; keeps ids, ranks and scores", async () => {
    assert.equal(ragscopeConfiguration().captureText, false);
    const secret = "salary of employee 42 is 100k";
    const chunks = [
      { chunkId: "payroll#1", documentId: "payroll", text: secret, score: 0.8, acl: ["hr"] },
      { chunkId: "payroll#2", text: secret, score: 0.3 },
    ];
    const answer = await traceRequest(
      { query: "what is the salary?", principalId: "employee-7" },
      async () => {
        const retrieved = await traceRetrieve({ query: "salary" }, () => chunks);
        await traceRerank({ query: "salary", input: retrieved }, () => [retrieved[1]!]);
        await traceContext({ tokenBudget: 50 }, () => ({ text: secret, chunkIds: ["payroll#2"], tokenCount: 9 }));
        const generated = await traceGenerate({ model: "m", prompt: `Context: ${secret}` }, () => ({ text: secret, outputTokens: 5 }));
        return generated.text;
      },
    );
    assert.equal(answer, secret, "the application still gets its answer");

    const spans = tracing.spans();
    assert.equal(spans.length, 5);
    for (const span of spans) {
      for (const [key, value] of Object.entries(span.attributes)) {
        assert.equal(JSON.stringify(value).includes("salary of employee"), false, `${span.name} ${key} leaks text`);
      }
    }
    const request = spanNamed(spans, "rag.request").attributes;
    assert.equal("output.value" in request, false);
    assert.equal("ragscope.answer" in request, false);

    const retrieve = spanNamed(spans, "rag.retrieve").attributes;
    assert.equal("retrieval.documents.0.document.content" in retrieve, false);
    assert.equal(retrieve["retrieval.documents.0.document.id"], "payroll#1");
    assert.equal(retrieve["retrieval.documents.0.document.score"], 0.8);
    assert.equal(retrieve["ragscope.documents.1.rank"], 2);
    assert.deepEqual(retrieve["ragscope.documents.0.acl"], ["hr"]);

    const rerank = spanNamed(spans, "rag.rerank").attributes;
    assert.equal(rerank["reranker.output_documents.0.document.id"], "payroll#2");
    assert.equal("reranker.input_documents.0.document.content" in rerank, false);

    const context = spanNamed(spans, "rag.context").attributes;
    assert.equal("ragscope.context.text" in context, false);
    assert.deepEqual(context["ragscope.context.chunk_ids"], ["payroll#2"]);
    assert.equal(context["ragscope.context.token_count"], 9);

    const generate = spanNamed(spans, "rag.generate").attributes;
    assert.equal("llm.input_messages.0.message.content" in generate, false);
    assert.equal("llm.output_messages.0.message.content" in generate, false);
    assert.equal("output.value" in generate, false);
    assert.equal("ragscope.answer" in generate, false);
    assert.equal(generate["llm.token_count.completion"], 5);
  });
});
