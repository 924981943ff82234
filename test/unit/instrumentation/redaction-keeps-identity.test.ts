/**
 * Redaction must not merge people or unlink chunks: twelve users whose ids are
 * e-mail addresses, in an A/B experiment, exported through `setupRagscope` to
 * an OTLP receiver. Their user, session and principal ids arrive as twelve
 * distinct values — as given under the default `replace`, as distinct keyed
 * hashes under `hash` — and a citation click on chunk `alice@example.com#3`
 * carries the chunk id the retrieve and cite spans carry.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { assignVariant, currentRequest, recordUserEvent, setupRagscope, traceCite, traceRequest, traceRetrieve } from "../../../instrumentation/index.js";
import type { RedactionMode } from "../../../instrumentation/index.js";
import { startTestReceiver, type TestReceiver } from "./otlp-test-receiver.js";

const USERS = 12;
const chunkId = "alice@example.com#3";
const variants = [{ name: "control", weight: 1 }, { name: "treatment", weight: 1 }];

async function twelveUsersExported(receiver: TestReceiver, mode: RedactionMode): Promise<void> {
  const handle = setupRagscope({ endpoint: receiver.endpoint, protocol: "http/json", serviceName: "identity-test", redaction: { mode }, flushOnExit: false, exportInWorker: false });
  try {
    for (let index = 0; index < USERS; index += 1) {
      const userId = `user${index}@example.com`;
      const variant = assignVariant({ experimentId: "prompt-v2", unitId: userId, variants });
      assert.ok(variant.ok);
      let traceId = "";
      await traceRequest({ query: "refund?", userId, sessionId: `session-${userId}`, principalId: userId, experimentId: "prompt-v2", experimentVariant: variant.value }, async () => {
        await traceRetrieve({ query: "refund?" }, () => [{ chunkId, text: "Refunds within 30 days." }]);
        await traceCite(() => [chunkId]);
        traceId = currentRequest()!.traceId;
        return "Within 30 days.";
      });
      assert.ok(recordUserEvent({ kind: "citation_click", traceId, sessionId: `session-${userId}`, chunkId }).ok);
    }
    await handle.forceFlush();
  } finally {
    await handle.shutdown();
  }
}

function valuesOf(receiver: TestReceiver, spanName: string, key: string): unknown[] {
  return receiver.spans.filter((span) => span.name === spanName).map((span) => span.attributes[key]);
}

describe("redaction keeps identity", () => {
  let receiver: TestReceiver;
  before(async () => {
    receiver = await startTestReceiver();
  });
  after(async () => receiver.close());

  for (const mode of ["replace", "hash"] as const) {
    test(`${mode}: twelve users stay twelve distinct user, session and principal ids, and a clicked chunk id matches its retrieval and citation`, async () => {
      receiver.spans.length = 0;
      await twelveUsersExported(receiver, mode);
      for (const key of ["user.id", "session.id", "ragscope.principal_id"]) {
        const values = valuesOf(receiver, "rag.request", key);
        assert.equal(values.length, USERS);
        assert.equal(new Set(values).size, USERS, `${key}: ${USERS} users must stay ${USERS} distinct values, got ${JSON.stringify(values)}`);
      }
      const userIds = valuesOf(receiver, "rag.request", "user.id") as string[];
      if (mode === "replace") {
        assert.deepEqual(userIds, Array.from({ length: USERS }, (_, index) => `user${index}@example.com`), "kept as the application gave them");
      } else {
        for (const userId of userIds) assert.match(userId, /^\[REDACTED:email:[0-9a-f]{16}\]$/, "a keyed pseudonym, not the address");
      }
      assert.equal(new Set(valuesOf(receiver, "rag.feedback", "session.id")).size, USERS, "feedback keeps one session per user");
      assert.deepEqual(new Set(valuesOf(receiver, "rag.feedback", "ragscope.feedback.chunk_id")), new Set([chunkId]));
      assert.deepEqual(new Set(valuesOf(receiver, "rag.retrieve", "retrieval.documents.0.document.id")), new Set([chunkId]));
      assert.deepEqual(new Set(valuesOf(receiver, "rag.cite", "ragscope.citations.chunk_ids").map((ids) => JSON.stringify(ids))), new Set([JSON.stringify([chunkId])]));
    });
  }
});
