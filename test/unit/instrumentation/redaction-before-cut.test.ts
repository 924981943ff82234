/**
 * A text cut to the maximum text length never exports part of a secret: each
 * default pattern's value, cut in its middle by the limit, in chunk texts and
 * an answer exported through `setupRagscope` to an OTLP receiver. Redacted
 * after the cut, the stored text ended `Note: 411111` (a card's first digits)
 * or `Call 13812` (a phone number's).
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { setupRagscope, traceRequest, traceRetrieve, type RagscopeSetupOptions } from "../../../instrumentation/index.js";
import { startTestReceiver, type TestReceiver } from "./otlp-test-receiver.js";

const privateKey = ["-----BEGIN RSA PRIVATE KEY-----", "MIIEowIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MhgHcTz6sE2I2yPB", "-----END RSA PRIVATE KEY-----"].join("\n");

/** One value of each documented pattern (instrumentation/README.md "Redaction"). */
const secrets: Record<string, string> = {
  id_card: "110101199003074514",
  phone: "13812345678",
  bank_card: "4111 1111 1111 1111",
  email: "jane.doe.secret@example.com",
  api_key: "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz012345",
  secret: "password=hunter2hunter2",
  private_key: privateKey,
};

const prefix = "Note: ";
/** The limit falls six characters into every secret. */
const limit = prefix.length + 6;

async function exported(receiver: TestReceiver, options: RagscopeSetupOptions, run: () => Promise<unknown>): Promise<void> {
  receiver.spans.length = 0;
  const handle = setupRagscope({ endpoint: receiver.endpoint, protocol: "http/json", serviceName: "cut-test", flushOnExit: false, exportInWorker: false, ...options });
  try {
    await run();
    await handle.forceFlush();
  } finally {
    await handle.shutdown();
  }
}

function assertNoPartOf(secret: string, stored: string, name: string): void {
  // Any four consecutive characters of the secret (past the pattern's key word) would be a part of it.
  const body = secret.replace(/^password=/, "").replace(/^-----BEGIN RSA PRIVATE KEY-----\n/, "");
  assert.ok(!stored.includes(body.slice(0, 4)), `${name}: part of the secret survives the cut: ${JSON.stringify(stored)}`);
}

describe("redaction before the text length cut", () => {
  let receiver: TestReceiver;
  before(async () => {
    receiver = await startTestReceiver();
  });
  after(async () => receiver.close());

  for (const mode of ["replace", "hash"] as const) {
    test(`${mode}: every documented pattern cut in its middle leaves no part of the secret`, async () => {
      const names = Object.keys(secrets);
      await exported(receiver, { maxTextLength: limit, redaction: { mode } }, () =>
        traceRequest({ query: "q" }, async () => {
          await traceRetrieve({ query: "q" }, () => names.map((name, index) => ({ chunkId: `c${index}`, text: `${prefix}${secrets[name]} is on file.` })));
          return "done";
        }),
      );
      const retrieve = receiver.spans.find((span) => span.name === "rag.retrieve")!;
      names.forEach((name, index) => {
        const key = `retrieval.documents.${index}.document.content`;
        const stored = retrieve.attributes[key] as string;
        assert.ok(stored.startsWith(prefix), `${name}: the text before the secret stays: ${JSON.stringify(stored)}`);
        assert.ok(stored.length <= limit, `${name}: still within the limit: ${JSON.stringify(stored)}`);
        assertNoPartOf(secrets[name]!, stored, name);
        assert.ok(!/\[REDACTED(?!:[^\]]*\])/.test(stored), `${name}: no half replacement: ${JSON.stringify(stored)}`);
        assert.equal(retrieve.attributes[`ragscope.cut.${key}`], `${prefix}${secrets[name]} is on file.`.length, `${name}: the cut is noted`);
      });
    });
  }

  test("RAGSCOPE_MAX_TEXT_LENGTH=10: the answer 'Call 13812345678' is not stored as 'Call 13812'", async () => {
    await exported(receiver, { maxTextLength: 10 }, () => traceRequest({ query: "q" }, () => "Call 13812345678"));
    const request = receiver.spans.find((span) => span.name === "rag.request")!;
    assert.equal(request.attributes["ragscope.answer"], "Call ");
  });

  test("the default limit: a card number straddling character 32768 leaves none of its digits", async () => {
    const filler = "x".repeat(32_768 - 7);
    await exported(receiver, {}, () => traceRequest({ query: "q" }, () => `${filler} 4111 1111 1111 1111 end`));
    const answer = receiver.spans.find((span) => span.name === "rag.request")!.attributes["ragscope.answer"] as string;
    // Compared by length and ending: a failing deep comparison of 32,768 characters would flood the report.
    assert.equal(answer.length, filler.length + 1, `the answer ends ${JSON.stringify(answer.slice(-20))}`);
    assert.ok(answer.endsWith("x "), `the answer ends ${JSON.stringify(answer.slice(-20))}`);
  });

  test("a secret that fits whole before the limit is replaced, and the rest is cut", async () => {
    await exported(receiver, { maxTextLength: 30 }, () => traceRequest({ query: "q" }, () => "Call 13812345678 tomorrow after lunch, please"));
    const answer = receiver.spans.find((span) => span.name === "rag.request")!.attributes["ragscope.answer"] as string;
    assert.equal(answer, "Call [REDACTED:phone] tomorrow");
  });
});
