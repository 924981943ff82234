/**
 * Stopping a collector process is bounded (collector/wiring/run/collector-process.ts):
 * roles that do not stop within the deadline (Kafka down: a commit or a
 * group leave that never ends) end the process at once, with a line saying
 * what was skipped; a stop that completed but could not commit exits 2. The
 * stop is said on stderr, with the role's other lines: "stopping (at most …)"
 * when it starts and "stopped" when it is over (it was on stdout, and nothing
 * said the end). A
 * stop that hangs here fails the test by its own timeout.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { runCollectorProcess, type RunningRoles } from "../../../collector/wiring/run/collector-process.js";
import { settingsSchema } from "../../../collector/wiring/config/settings-schema.js";

const settings = settingsSchema.parse({ observe: { host: "127.0.0.1", port: 0 } });

async function run(close: () => Promise<void>, stopTimeoutMs: number): Promise<{ code: number; exitedWith: number | null; terminated: boolean; errors: string[]; logs: string[] }> {
  const errors: string[] = [];
  const logs: string[] = [];
  let exitedWith: number | null = null;
  let terminated = false;
  const roles: RunningRoles = { readiness: [], describe: ["test role running"], close };
  const code = await runCollectorProcess({
    name: "evaluate",
    settings,
    debug: false,
    start: async () => roles,
    output: { log: (line) => logs.push(line), error: (line) => errors.push(line) },
    stopSignal: Promise.resolve(),
    stopTimeoutMs,
    exit: (value) => {
      exitedWith = value;
    },
    terminate: () => {
      terminated = true;
    },
  });
  return { code, exitedWith, terminated, errors, logs };
}

describe("stopping a collector process", { timeout: 20_000 }, () => {
  test("roles that do not stop within the deadline: the process is ended at the deadline, saying nothing was committed", async () => {
    const started = Date.now();
    const outcome = await run(() => new Promise<void>(() => {}), 300);
    assert.ok(Date.now() - started < 5_000, "the deadline ended the wait");
    assert.equal(outcome.code, 2);
    assert.equal(outcome.terminated, true, "the process is ended: handles the roles hold would keep it alive");
    assert.match(outcome.errors.join("\n"), /ragscope evaluate: the roles did not stop within 0\.3 s .*exiting without committing; what was read and not committed is evaluated again/);
    // On stderr with the role's other lines (it was the one "ragscope evaluate:" line on stdout).
    assert.ok(outcome.errors.some((line) => /^ragscope evaluate: stopping \(at most 0\.3 s\)$/.test(line)), outcome.errors.join("\n"));
    assert.ok(!outcome.logs.some((line) => /stopping/.test(line)), outcome.logs.join("\n"));
  });

  test("a stop that finished but could not commit: status 2 with the reason", async () => {
    const outcome = await run(async () => {
      throw new Error("the last offset commit failed (Connection error): what was read since the previous commit is evaluated again on the next start");
    }, 5_000);
    assert.equal(outcome.code, 2);
    assert.equal(outcome.terminated, false, "the process ends on its own");
    assert.match(outcome.errors.join("\n"), /ragscope evaluate: stopping: the last offset commit failed/);
    assert.equal(outcome.errors.at(-1), "ragscope evaluate: stopped (exit code 2: the stop had a problem, above)");
  });

  test("a clean stop: status 0", async () => {
    const outcome = await run(async () => {}, 5_000);
    assert.equal(outcome.code, 0);
    assert.equal(outcome.terminated, false);
    // The stop said where it starts and where it ends, on one stream; nothing else (no problem to tell).
    assert.deepEqual(outcome.errors, ["ragscope evaluate: stopping (at most 5 s)", "ragscope evaluate: stopped"]);
    assert.ok(!outcome.logs.some((line) => /stopp/.test(line)), outcome.logs.join("\n"));
  });
});
