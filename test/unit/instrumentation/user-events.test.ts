/**
 * recordUserEvent (the user-event kinds beyond thumbs), experiment attributes
 * on traceRequest and the deterministic variant assignment.
 */
import { after, before, beforeEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import { assignVariant, assignmentBucket, recordUserEvent, traceRequest } from "../../../instrumentation/index.js";
import { spanNamed, startInMemoryTracing, type InMemoryTracing } from "./in-memory-tracing.js";

const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";

describe("recordUserEvent", () => {
  let tracing: InMemoryTracing;
  before(() => {
    tracing = startInMemoryTracing();
  });
  beforeEach(() => tracing.reset());
  after(async () => {
    await tracing.stop();
  });

  test("every kind is a rag.feedback span of the request's trace, with session and cited chunk", () => {
    for (const kind of ["copy", "handoff", "resolved", "abandoned", "rating", "thumbs_up", "thumbs_down", "follow_up"] as const) {
      const outcome = recordUserEvent({ kind, traceId, sessionId: "s-1", value: kind === "rating" ? 4 : undefined });
      assert.ok(outcome.ok, kind);
    }
    const click = recordUserEvent({ kind: "citation_click", traceId, sessionId: "s-1", chunkId: "chunk-7" });
    assert.ok(click.ok);
    const spans = tracing.spans();
    assert.equal(spans.length, 9);
    for (const span of spans) {
      assert.equal(span.name, "rag.feedback");
      assert.equal(span.spanContext().traceId, traceId);
      assert.equal(span.attributes["session.id"], "s-1");
    }
    const clicked = spans.find((span) => span.attributes["ragscope.feedback.kind"] === "citation_click")!;
    assert.equal(clicked.attributes["ragscope.feedback.chunk_id"], "chunk-7");
    const rated = spans.find((span) => span.attributes["ragscope.feedback.kind"] === "rating")!;
    assert.equal(rated.attributes["ragscope.feedback.value"], 4);
  });

  test("an event queued and sent days later keeps the time the user acted", () => {
    const occurredAt = new Date("2026-11-20T08:30:00.000Z");
    assert.ok(recordUserEvent({ kind: "resolved", traceId, occurredAt }).ok);
    const span = spanNamed(tracing.spans(), "rag.feedback");
    assert.equal(span.startTime[0], occurredAt.getTime() / 1000);
  });

  test("a citation click without the chunk, or a bad date, records nothing and says why", () => {
    const noChunk = recordUserEvent({ kind: "citation_click", traceId });
    assert.ok(!noChunk.ok && /chunkId/.test(noChunk.error));
    const badDate = recordUserEvent({ kind: "copy", traceId, occurredAt: new Date("not a date") });
    assert.ok(!badDate.ok && /occurredAt/.test(badDate.error));
    assert.equal(tracing.spans().length, 0);
  });

  test("traceRequest records the experiment and variant on the request span", async () => {
    await traceRequest({ query: "q", experimentId: "prompt-v2", experimentVariant: "treatment", userId: "u-1" }, () => "a");
    const request = spanNamed(tracing.spans(), "rag.request");
    assert.equal(request.attributes["ragscope.experiment.id"], "prompt-v2");
    assert.equal(request.attributes["ragscope.experiment.variant"], "treatment");
  });
});

describe("assignVariant", () => {
  const variants = [
    { name: "control", weight: 1 },
    { name: "treatment", weight: 1 },
  ];

  test("a unit always gets the same variant", () => {
    for (let index = 0; index < 50; index += 1) {
      const first = assignVariant({ experimentId: "e", unitId: `user-${index}`, variants });
      const second = assignVariant({ experimentId: "e", unitId: `user-${index}`, variants });
      assert.deepEqual(first, second);
    }
  });

  test("the bucket is the first 52 bits of SHA-256(experiment:unit), computed independently", () => {
    // python3 -c "import hashlib; d=hashlib.sha256(b'exp-1:user-42').digest(); print(int.from_bytes(d[:8],'big')>>12)"
    const digest52 = 542759989722453;
    assert.equal(assignmentBucket("exp-1", "user-42"), digest52 / 2 ** 52);
  });

  test("weights split units in proportion (10 000 units, 3:1 within 2 %)", () => {
    const counts = new Map<string, number>();
    for (let index = 0; index < 10_000; index += 1) {
      const outcome = assignVariant({ experimentId: "split", unitId: `u${index}`, variants: [{ name: "a", weight: 3 }, { name: "b", weight: 1 }] });
      assert.ok(outcome.ok);
      counts.set(outcome.value, (counts.get(outcome.value) ?? 0) + 1);
    }
    assert.ok(Math.abs((counts.get("a") ?? 0) / 10_000 - 0.75) < 0.02, JSON.stringify([...counts]));
  });

  test("bad options are failures, not throws", () => {
    assert.ok(!assignVariant({ experimentId: "", unitId: "u", variants }).ok);
    assert.ok(!assignVariant({ experimentId: "e", unitId: "", variants }).ok);
    assert.ok(!assignVariant({ experimentId: "e", unitId: "u", variants: [variants[0]!] }).ok);
    assert.ok(!assignVariant({ experimentId: "e", unitId: "u", variants: [{ name: "a", weight: 0 }, { name: "b", weight: 1 }] }).ok);
    assert.ok(!assignVariant({ experimentId: "e", unitId: "u", variants: [{ name: "a", weight: 1 }, { name: "a", weight: 1 }] }).ok);
  });
});
