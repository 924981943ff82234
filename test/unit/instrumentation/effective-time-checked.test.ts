/**
 * A chunk's effective time that is not an ISO 8601 date or date-time — a date that does not exist, a local format,
 * a Date object — is left off the span (both bounds: one alone would read as open on the other side, a version whose
 * end was mistyped counted as still in force), counted (instrumentationErrors()) and said on stderr with the field
 * and the value, in an application as users run it. Valid bounds are recorded as given.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { startTestReceiver } from "./otlp-test-receiver.js";
import { SDK, runSdkScript } from "./sdk-script.js";

test("invalid effective dates are left off the span, both bounds, counted and said with the field and the value", async () => {
  const receiver = await startTestReceiver();
  try {
    const script = `
      import { setupRagscope, traceRequest, traceRetrieve, instrumentationErrors } from ${SDK};
      const ragscope = setupRagscope({ serviceName: "effective-dates" });
      await traceRequest({ query: "refunds?" }, () =>
        traceRetrieve({ query: "refunds?" }, () => [
          { chunkId: "valid", effectiveFrom: "2026-01-01", effectiveTo: "2026-06-30 23:59:59" },
          { chunkId: "no-such-day", effectiveFrom: "2026-01-01", effectiveTo: "2026-02-30" },
          { chunkId: "local-format", effectiveFrom: "30/06/2026" },
          { chunkId: "date-object", effectiveTo: new Date(0) },
        ]),
      );
      await ragscope.shutdown();
      console.log(JSON.stringify({ errors: instrumentationErrors() }));
    `;
    const result = await runSdkScript(script, { RAGSCOPE_ENDPOINT: receiver.endpoint });
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(JSON.parse(result.stdout), { errors: 3 }, "each invalid chunk counted");
    assert.match(result.stderr, /rag\.retrieve: retrieval\.documents: chunk 2's effectiveTo "2026-02-30": the date 2026-02-30 does not exist \(February 2026 has 28 days\): the chunk's effective time is left off the span, both bounds/);
    const attributes = receiver.spans.find((span) => span.name === "rag.retrieve")!.attributes;
    assert.equal(attributes["ragscope.documents.0.effective_from"], "2026-01-01");
    assert.equal(attributes["ragscope.documents.0.effective_to"], "2026-06-30 23:59:59");
    for (const index of [1, 2, 3]) {
      assert.equal(attributes[`ragscope.documents.${index}.effective_from`], undefined, `chunk ${index + 1}`);
      assert.equal(attributes[`ragscope.documents.${index}.effective_to`], undefined, `chunk ${index + 1}`);
      assert.ok(attributes[`retrieval.documents.${index}.document.id`] !== undefined, "the chunk itself is recorded");
    }
  } finally {
    await receiver.close();
  }
});
