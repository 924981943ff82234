/**
 * The decode threads' young generation follows the heap bound: 96 MiB from a
 * heap bound of 768 MiB up (serve's decode threads spent ~15 % less CPU,
 * embedded-serve.bench.ts notes), V8's default 48 MiB in a small container,
 * and the threads are started with what the settings give (V8's own report
 * of a running thread's limits).
 */
import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import { DecodePool, decodeThreadYoungGenerationMb } from "../../../collector/01-receive/decode-pool.js";
import { receiverBounds } from "../../../collector/01-receive/receiver-bounds.js";
import { resolveSettings } from "../../../collector/wiring/config/load-settings.js";

const pools: DecodePool[] = [];
after(async () => {
  await Promise.all(pools.map((pool) => pool.close()));
});

function boundsFor(maxHeapMb: number) {
  const resolved = resolveSettings({ fixed: { "memory.maxHeapMb": maxHeapMb } });
  assert.ok(resolved.ok, resolved.ok ? "" : resolved.error.join("\n"));
  return receiverBounds(resolved.value.settings);
}

describe("decode thread young generation", () => {
  test("an eighth of the heap bound, between V8's default (48 MiB) and 96 MiB", () => {
    assert.equal(decodeThreadYoungGenerationMb(3_300), 96);
    assert.equal(decodeThreadYoungGenerationMb(768), 96);
    assert.equal(decodeThreadYoungGenerationMb(640), 80);
    assert.equal(decodeThreadYoungGenerationMb(204), 48);
    assert.equal(decodeThreadYoungGenerationMb(32), 48);
  });

  test("the settings' heap bound reaches the threads V8 runs", () => {
    const large = boundsFor(4_096);
    assert.equal(large.decodeThreadYoungGenerationMb, 96);
    const pool = new DecodePool(large.decodeThreads ?? 2, large.decodeThreadYoungGenerationMb);
    pools.push(pool);
    const limits = pool.threadLimits();
    assert.equal(limits.length, 2);
    for (const limit of limits) assert.equal(limit.maxYoungGenerationSizeMb, 96);

    const small = new DecodePool(1, boundsFor(204).decodeThreadYoungGenerationMb);
    pools.push(small);
    assert.deepEqual(small.threadLimits().map((limit) => limit.maxYoungGenerationSizeMb), [48]);
  });
});
