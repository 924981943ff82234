/**
 * A number the application hands the SDK as text — a token count read from a provider's JSON as "100", a chunk score
 * as "0.8" — is left off the span, counted (instrumentationErrors()) and said on stderr with the field and how to
 * fix it, in an application as users run it (setupRagscope, spans exported over OTLP/HTTP). Before, the text was
 * recorded as it was and read downstream as a number nobody had checked, and the total tokens were silently missing.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { startTestReceiver } from "./otlp-test-receiver.js";
import { SDK, runSdkScript } from "./sdk-script.js";

test("token counts and a chunk score given as strings are left off the span, counted, and said with the field", async () => {
  const receiver = await startTestReceiver();
  try {
    const script = `
      import { setupRagscope, traceRequest, traceRetrieve, traceGenerate, instrumentationErrors } from ${SDK};
      const ragscope = setupRagscope({ serviceName: "text-numbers" });
      const answer = await traceRequest({ query: "refunds?" }, async () => {
        await traceRetrieve({ query: "refunds?" }, () => [{ chunkId: "c1", score: "0.8" }, { chunkId: "c2", score: 0.5 }]);
        return traceGenerate({ model: "m" }, () => ({ text: "an answer", inputTokens: "100", outputTokens: 20 }));
      });
      await ragscope.shutdown();
      console.log(JSON.stringify({ answer: answer.inputTokens, errors: instrumentationErrors() }));
    `;
    const result = await runSdkScript(script, { RAGSCOPE_ENDPOINT: receiver.endpoint });
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(JSON.parse(result.stdout), { answer: "100", errors: 2 }, "the application gets its value unchanged; both problems counted");
    assert.match(result.stderr, /rag\.generate: generation record's inputTokens is string, not a number: left off the span \(give it as a number/);
    assert.match(result.stderr, /rag\.retrieve: retrieval\.documents: the score of chunk 1 is string, not a number/);
    const generate = receiver.spans.find((span) => span.name === "rag.generate")!;
    assert.equal(generate.attributes["llm.token_count.prompt"], undefined, "not the text \"100\"");
    assert.equal(generate.attributes["llm.token_count.completion"], 20);
    const retrieve = receiver.spans.find((span) => span.name === "rag.retrieve")!;
    assert.equal(retrieve.attributes["retrieval.documents.0.document.score"], undefined);
    assert.equal(retrieve.attributes["retrieval.documents.1.document.score"], 0.5);
  } finally {
    await receiver.close();
  }
});

test("an abstention flag given as text is left off the span, counted, and said; a boolean is recorded as it is", async () => {
  const receiver = await startTestReceiver();
  try {
    const script = `
      import { setupRagscope, traceRequest, traceGenerate, instrumentationErrors } from ${SDK};
      const ragscope = setupRagscope({ serviceName: "text-flags" });
      await traceRequest({ query: "refunds?" }, () => traceGenerate({ model: "m" }, () => ({ text: "I cannot tell.", abstained: "yes" })));
      await traceRequest({ query: "points?" }, () => traceGenerate({ model: "m" }, () => ({ text: "I cannot tell.", abstained: true })));
      await ragscope.shutdown();
      console.log(JSON.stringify({ errors: instrumentationErrors() }));
    `;
    const result = await runSdkScript(script, { RAGSCOPE_ENDPOINT: receiver.endpoint });
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(JSON.parse(result.stdout), { errors: 1 });
    assert.match(result.stderr, /rag\.generate: generation record's abstained is string, not true or false: left off the span \(give it as a boolean/);
    const generations = receiver.spans.filter((span) => span.name === "rag.generate");
    assert.equal(generations.length, 2);
    const flags = generations.map((span) => span.attributes["ragscope.answer.abstained"]).sort();
    assert.deepEqual(flags, [true, undefined], "the text \"yes\" is not recorded; true is");
  } finally {
    await receiver.close();
  }
});
