/**
 * The health endpoints of the Kafka roles' processes (`receive`, `evaluate`,
 * `collect`: collector/wiring/run/collector-process.ts) while the roles start
 * and while they stop, over HTTP as a probe asks them. The roles' start and
 * stop are held by the test — as an evaluator's start is held by the store's
 * migrations (minutes on a big store), and its stop by the last writes and
 * the commit — and let go when the test says:
 * - starting: /healthz 200 (a liveness probe that got no answer killed the
 *   process mid-migration), /readyz 503 naming the start's step;
 * - running: /readyz answers the roles' checks;
 * - draining: /readyz 503 "draining", /healthz 200 until the roles stopped.
 * The serve command's own endpoints are tested on the CLI
 * (test/integration/observe/serve-health-during-start-and-stop.test.ts).
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { runCollectorProcess, type RunningRoles } from "../../../collector/wiring/run/collector-process.js";
import { settingsSchema } from "../../../collector/wiring/config/settings-schema.js";
import { reserveFreePorts } from "../../support/kafka-free-ports.js";
import { eventually as waitUntil } from "../../support/eventually.js";

const eventually = (description: string, condition: () => boolean | Promise<boolean>, timeoutMs = 10_000) => waitUntil(description, condition, timeoutMs, 20);

type Answer = { status: number; body: string } | { refused: string };

async function get(url: string): Promise<Answer> {
  try {
    const response = await fetch(url);
    return { status: response.status, body: await response.text() };
  } catch (error) {
    return { refused: (error as { cause?: { code?: string } }).cause?.code ?? String(error) };
  }
}

/** Polls (bounded) until `condition` holds. */
function heldPromise(): { promise: Promise<void>; release: () => void } {
  let release: () => void = () => {};
  const promise = new Promise<void>((resolve) => (release = resolve));
  return { promise, release };
}

describe("a collector process's /healthz and /readyz while its roles start and stop", { timeout: 30_000 }, () => {
  test("starting: alive and not ready, naming the step; running: the roles' checks; draining: alive and not ready", async () => {
    const [port] = await reserveFreePorts(1);
    const observe = `http://127.0.0.1:${port}`;
    const settings = settingsSchema.parse({ observe: { host: "127.0.0.1", port } });
    const startHeld = heldPromise();
    const closeHeld = heldPromise();
    const stop = heldPromise();
    let startReached = false;
    let closeReached = false;
    const errors: string[] = [];
    const roles: RunningRoles = {
      readiness: [{ name: "kafka consumer", check: async () => null }],
      describe: ["test role running"],
      close: async () => {
        closeReached = true;
        await closeHeld.promise;
      },
    };
    const running = runCollectorProcess({
      name: "evaluate",
      settings,
      debug: false,
      start: async (_settings, context) => {
        // As the evaluator's store says its migrations (kafka-evaluator-role.ts).
        context.startUp?.("evaluator: store migrations running: 2 of 5 applied, applying 0003_example");
        startReached = true;
        await startHeld.promise;
        return roles;
      },
      output: { log: () => {}, error: (line) => errors.push(line) },
      stopSignal: stop.promise,
      stopTimeoutMs: 20_000,
      exit: () => {},
      terminate: () => {},
    });
    try {
      await eventually("the roles' start", () => startReached);
      assert.deepEqual(await get(`${observe}/healthz`), { status: 200, body: "ok\n" }, "alive while the roles start");
      assert.deepEqual(await get(`${observe}/readyz`), { status: 503, body: "start-up: evaluator: store migrations running: 2 of 5 applied, applying 0003_example\n" });

      startHeld.release();
      let readiness: Answer = { refused: "not asked yet" };
      await eventually("ready once the roles run", async () => {
        readiness = await get(`${observe}/readyz`);
        return "status" in readiness && readiness.status === 200;
      });
      assert.deepEqual(readiness, { status: 200, body: "kafka consumer: ok\n" });

      stop.release();
      await eventually("the roles' stop", () => closeReached);
      assert.deepEqual(await get(`${observe}/readyz`), { status: 503, body: "draining: evaluate stops: the roles write what is ready and commit (at most 20 s)\n" });
      assert.deepEqual(await get(`${observe}/healthz`), { status: 200, body: "ok\n" }, "alive while the roles stop");

      closeHeld.release();
      assert.equal(await running, 0, errors.join("\n"));
      assert.ok("refused" in (await get(`${observe}/healthz`)), "closed once the roles stopped");
    } finally {
      startHeld.release();
      stop.release();
      closeHeld.release();
      await running.catch(() => {});
    }
  });
});
