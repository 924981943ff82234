/**
 * Stage spans started one after another have strictly increasing start times (instrumentation/span-clock.ts). OTel's
 * default start time is Date.now(), whole milliseconds: a draft generation and the final one awaited after it often
 * started in the same millisecond, and the collector could not tell which was the request's last — its model was the
 * draft's for half the requests.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { hrTimeToNanoseconds } from "@opentelemetry/core";
import { traceGenerate, traceRequest } from "../../../instrumentation/index.js";
import { startInMemoryTracing, type InMemoryTracing } from "./in-memory-tracing.js";

const GENERATIONS = 50;

let tracing: InMemoryTracing;
before(() => {
  tracing = startInMemoryTracing();
});
after(() => tracing.stop());

test("awaited generations, however quickly they follow each other, start in the order they ran and each ends after it starts", async () => {
  await traceRequest({ query: "q" }, async () => {
    for (let index = 0; index < GENERATIONS; index += 1) await traceGenerate({ model: `m-${index}` }, () => ({ text: `answer ${index}` }));
  });
  const generations = tracing.spans().filter((span) => span.name === "rag.generate");
  assert.equal(generations.length, GENERATIONS);
  const starts = generations.map((span) => hrTimeToNanoseconds(span.startTime));
  const ends = generations.map((span) => hrTimeToNanoseconds(span.endTime));
  for (let index = 1; index < GENERATIONS; index += 1) {
    assert.ok(starts[index]! > starts[index - 1]!, `generation ${index} starts at ${starts[index]} ns, not after generation ${index - 1} at ${starts[index - 1]} ns`);
  }
  for (let index = 0; index < GENERATIONS; index += 1) {
    assert.ok(ends[index]! >= starts[index]!, `generation ${index} ends at ${ends[index]} ns, before it starts at ${starts[index]} ns`);
    if (index > 0) assert.ok(starts[index]! >= ends[index - 1]!, `generation ${index} starts before generation ${index - 1}, which it awaited, ended`);
  }
});
