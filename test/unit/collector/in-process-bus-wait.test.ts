/**
 * The in-process bus's wait for room (collector/02-transport/in-process/in-process-bus.ts): a publish that no longer
 * fits once its request was decoded waits for the reader instead of being refused at once (which threw the decoding
 * away for the client to send again), in arrival order, refused after its wait, at once when reading pauses for
 * the heap, and never when the wait is 0 (refused at once, as before).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { InProcessBus } from "../../../collector/02-transport/in-process/in-process-bus.js";
import type { DecodedTrace } from "../../../collector/02-transport/trace-bus.js";

const MIB = 1024 * 1024;

/** A decoded trace counted as `bytes` (the bus reads nothing else of it). */
function trace(key: string, bytes: number): DecodedTrace {
  return { key, spans: [], bytes };
}

/** Whether `promise` has settled, without waiting on a timer: settled promises resolve within a microtask turn. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

test("a publish that does not fit waits for the reader and is taken once it makes room", async () => {
  const bus = new InProcessBus({ maxQueuedMessages: 100, maxQueuedBytes: 10 * MIB, maxPublishWaitMs: 60_000 });
  assert.deepEqual(await bus.publishDecoded([trace("a", 8 * MIB)]), { ok: true, value: undefined });
  const waiting = bus.publishDecoded([trace("b", 4 * MIB)]);
  assert.equal(await settled(waiting), false, "it waits rather than being refused");
  assert.equal(bus.waitingPublishes, 1);
  assert.equal(bus.depth, 1);
  const taken = bus.takeAll();
  assert.deepEqual(taken.map((record) => (record.kind === "decoded" ? record.traceIds : [])), [["a"]]);
  assert.deepEqual(await waiting, { ok: true, value: undefined });
  assert.equal(bus.depth, 1);
  assert.equal(bus.bytes, 4 * MIB);
  assert.equal(bus.counters.waitedForRoom, 1);
  assert.equal(bus.counters.rejectedFull, 0);
});

test("waiting publishes are taken in arrival order: a later one that would fit never overtakes an earlier one", async () => {
  const bus = new InProcessBus({ maxQueuedMessages: 100, maxQueuedBytes: 10 * MIB, maxPublishWaitMs: 60_000 });
  await bus.publishDecoded([trace("a", 6 * MIB)]);
  const large = bus.publishDecoded([trace("large", 9 * MIB)]);
  const small = bus.publishDecoded([trace("small", 1 * MIB)]);
  assert.equal(await settled(small), false, "the small one fits the bytes left but waits behind the large one");
  bus.takeAll();
  assert.deepEqual(await large, { ok: true, value: undefined });
  assert.deepEqual(await small, { ok: true, value: undefined }, "9 + 1 MiB fit the 10 MiB bound");
  assert.deepEqual(bus.takeAll().map((record) => (record.kind === "decoded" ? record.traceIds[0] : "")), ["large", "small"]);
});

test("a publish that waited its whole wait is refused as retriable, saying it waited", async () => {
  const bus = new InProcessBus({ maxQueuedMessages: 100, maxQueuedBytes: 10 * MIB, maxPublishWaitMs: 20 });
  await bus.publishDecoded([trace("a", 8 * MIB)]);
  const result = await bus.publishDecoded([trace("b", 4 * MIB)]);
  assert.equal(result.ok, false);
  assert.ok(!result.ok && result.error.retriable);
  assert.match(!result.ok ? result.error.message : "", /in-process queue is full \(8 MiB held, 4 MiB more asked, bound 10 MiB, RAGSCOPE_MAX_QUEUED_BYTES; waited 20 ms for room\)/);
  assert.equal(bus.waitingPublishes, 0);
  assert.equal(bus.depth, 1, "nothing of it was queued");
  assert.equal(bus.counters.rejectedFull, 1);
});

test("reading paused for the heap refuses the waiting publishes at once, and new ones without a wait", async () => {
  const bus = new InProcessBus({ maxQueuedMessages: 100, maxQueuedBytes: 10 * MIB, maxPublishWaitMs: 60_000 });
  await bus.publishDecoded([trace("a", 8 * MIB)]);
  const waiting = bus.publishDecoded([trace("b", 4 * MIB)]);
  assert.equal(await settled(waiting), false);
  bus.pause("heap");
  const result = await waiting;
  assert.equal(result.ok, false);
  assert.match(!result.ok ? result.error.message : "", /heap is near its bound/);
  const later = await bus.publishDecoded([trace("c", 1 * MIB)]);
  assert.equal(later.ok, false, "refused at once while paused for the heap");
  assert.equal(bus.waitingPublishes, 0);
  bus.resume();
  bus.pause("sink_backlog");
  const fits = await bus.publishDecoded([trace("d", 1 * MIB)]);
  assert.deepEqual(fits, { ok: true, value: undefined }, "paused for another reason, what fits is taken");
});

test("with no wait allowed a publish that does not fit is refused at once", async () => {
  const bus = new InProcessBus({ maxQueuedMessages: 100, maxQueuedBytes: 10 * MIB, maxPublishWaitMs: 0 });
  await bus.publishDecoded([trace("a", 8 * MIB)]);
  const result = bus.publishDecoded([trace("b", 4 * MIB)]);
  assert.equal(await settled(result), true);
  assert.equal((await result).ok, false);
  assert.equal(bus.waitingPublishes, 0);
});
