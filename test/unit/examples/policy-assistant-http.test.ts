/**
 * POST /ask of the policy-assistant service, over a real socket on a random
 * port (no tracer provider: the service answers the same without one).
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import { createPolicyAssistant } from "../../../examples/policy-assistant/create-policy-assistant.js";
import { createAskServer } from "../../../examples/policy-assistant/http/ask-server.js";

const server = createAskServer(createPolicyAssistant());
let baseUrl: string;

before(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

async function post(body: string): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${baseUrl}/ask`, { method: "POST", headers: { "content-type": "application/json" }, body });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

describe("POST /ask", () => {
  test("answers with the snake_case answer JSON", async () => {
    const { status, json } = await post(JSON.stringify({ question: "我用了优惠券只退一件商品，积分会扣回吗？", case_id: "rag_refund_member_points_001" }));
    assert.equal(status, 200);
    assert.equal(json.answer, "积分不会受影响，优惠券也会原路退回");
    assert.deepEqual(json.citations, ["refund_general_01"]);
    assert.equal(json.abstained, false);
    const chunks = json.retrieved_chunks as { rank: number; chunk_id: string; effective_to: string | null }[];
    assert.deepEqual(chunks.slice(0, 2).map((chunk) => [chunk.rank, chunk.chunk_id]), [
      [1, "refund_general_01"],
      [2, "refund_member_points_02"],
    ]);
    const context = json.context as { chunk_ids: string[]; dropped_chunks: { chunk_id: string; reason: string }[] };
    assert.deepEqual(context.chunk_ids, ["refund_general_01"]);
    assert.deepEqual(context.dropped_chunks[0], { chunk_id: "refund_member_points_02", reason: "token_budget" });
    assert.equal(json.trace_id, null, "no tracer provider is registered");
  });

  test("rejects a missing question, invalid JSON and unknown fields with 400 and a reason", async () => {
    const missing = await post(JSON.stringify({}));
    assert.equal(missing.status, 400);
    assert.match(String(missing.json.error), /question/);
    const invalid = await post("{not json");
    assert.equal(invalid.status, 400);
    assert.match(String(invalid.json.error), /not valid JSON/);
    const unknown = await post(JSON.stringify({ question: "q", topk: 3 }));
    assert.equal(unknown.status, 400);
    assert.match(String(unknown.json.error), /topk/);
  });

  test("other routes and methods", async () => {
    assert.equal((await fetch(`${baseUrl}/ask`)).status, 405);
    assert.equal((await fetch(`${baseUrl}/nowhere`)).status, 404);
    const health = await fetch(`${baseUrl}/healthz`);
    assert.equal(health.status, 200);
    assert.deepEqual(await health.json(), { status: "ok" });
  });

  test("a body over 64 KiB is refused with 413", async () => {
    const { status } = await post(JSON.stringify({ question: "x".repeat(70 * 1024) }));
    assert.equal(status, 413);
  });
});
