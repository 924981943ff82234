/**
 * instrumentation/README.md's "build the processor yourself" setup, run as
 * written: an application that builds its own NodeSDK with
 * `createRagscopeSpanProcessor` keeps OTel's 128-attribute limit unless it sets
 * `spanLimits` itself, and then a 30-chunk retrieval reaches the collector
 * without most of its chunks. The snippet is read from the README, so the
 * documented setup and this test cannot drift apart.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { startTestReceiver, type TestReceiver } from "./otlp-test-receiver.js";
import { runSdkScript } from "./sdk-script.js";

const readmePath = fileURLToPath(new URL("../../../instrumentation/README.md", import.meta.url));
const instrumentationSource = fileURLToPath(new URL("../../../instrumentation/index.ts", import.meta.url));
const CHUNKS = 30;

/** The fenced block after `<!-- processor-yourself -->`, importing the package's source instead of the installed package. */
async function documentedSetup(): Promise<string> {
  const readme = await readFile(readmePath, "utf8");
  const block = /<!-- processor-yourself -->\n```ts\n([\s\S]*?)\n```/.exec(readme);
  assert.ok(block, "instrumentation/README.md has the processor-yourself example");
  return block[1]!.replaceAll('"ragscope/instrumentation"', JSON.stringify(instrumentationSource));
}

let receiver: TestReceiver;
before(async () => {
  receiver = await startTestReceiver();
});
after(async () => receiver.close());

test("the README's own-NodeSDK setup exports a 30-chunk retrieval with every chunk", async () => {
  const application = `
    ${await documentedSetup()}
    const { traceRequest, traceRetrieve } = await import(${JSON.stringify(instrumentationSource)});
    const chunks = Array.from({ length: ${CHUNKS} }, (_, index) => ({ chunkId: "chunk-" + index, documentId: "doc-" + index, text: "text " + index, score: 1 - index / 100 }));
    await traceRequest({ query: "q" }, () => traceRetrieve({ query: "q", topK: ${CHUNKS} }, async () => chunks));
    await sdk.shutdown();
  `;
  const result = await runSdkScript(application, { RAGSCOPE_ENDPOINT: receiver.endpoint });
  assert.equal(result.code, 0, result.stderr);
  const retrieval = receiver.spans.find((span) => span.name === "rag.retrieve");
  assert.ok(retrieval, `the retrieval span was exported: ${receiver.spans.map((span) => span.name).join(", ")}`);
  const recorded = Array.from({ length: CHUNKS }, (_, index) => retrieval.attributes[`retrieval.documents.${index}.document.id`]);
  assert.deepEqual(recorded, Array.from({ length: CHUNKS }, (_, index) => `chunk-${index}`), "every chunk's id is on the span");
});
