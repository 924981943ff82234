/**
 * A short-lived process exports everything it recorded: the SDK flushes when
 * the event loop drains (beforeExit) and on SIGTERM, and says on stderr —
 * with the count and the endpoint — when spans are lost.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { startTestReceiver, type TestReceiver } from "./otlp-test-receiver.js";
import { SDK, runSdkScript } from "./sdk-script.js";

const app = fileURLToPath(new URL("./fixtures/short-lived-app.ts", import.meta.url));

function run(environment: Record<string, string>, args: string[] = [app]): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", ...args], { env: { ...process.env, ...environment } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (part: Buffer) => (stdout += part.toString()));
    child.stderr.on("data", (part: Buffer) => (stderr += part.toString()));
    child.on("exit", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

describe("a short-lived process", () => {
  let receiver: TestReceiver;
  before(async () => {
    receiver = await startTestReceiver();
  });
  after(async () => receiver.close());

  test("whose event loop drains exports every span it recorded", async () => {
    const before = receiver.spans.length;
    const result = await run({ RAGSCOPE_ENDPOINT: receiver.endpoint, REQUESTS: "5", EXIT_MODE: "drain" });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /queued 10/, "the spans were still queued when the script's work ended");
    assert.equal(receiver.spans.length - before, 10);
    assert.equal(result.stderr, "", "nothing lost, nothing to warn about");
  });

  test("that awaits shutdown() and then calls process.exit exports every span", async () => {
    const before = receiver.spans.length;
    const result = await run({ RAGSCOPE_ENDPOINT: receiver.endpoint, REQUESTS: "2", EXIT_MODE: "exit-after-shutdown" });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(receiver.spans.length - before, 4);
  });

  test("that calls process.exit without shutdown() is told on stderr how many spans were lost and where they were going", async () => {
    const result = await run({ RAGSCOPE_ENDPOINT: receiver.endpoint, REQUESTS: "2", EXIT_MODE: "exit-at-once" });
    assert.equal(result.code, 0);
    assert.match(result.stderr, new RegExp(`4 spans not yet exported to ${receiver.endpoint}/v1/traces; await shutdown\\(\\)`));
  });

  test("with flushOnExit off (RAGSCOPE_FLUSH_ON_EXIT=false) leaves the flush to the application, and says so when it did not flush", async () => {
    const before = receiver.spans.length;
    const result = await run({ RAGSCOPE_ENDPOINT: receiver.endpoint, REQUESTS: "1", EXIT_MODE: "drain", RAGSCOPE_FLUSH_ON_EXIT: "false" });
    assert.equal(result.code, 0);
    assert.equal(receiver.spans.length - before, 0);
    assert.match(result.stderr, /2 spans not yet exported/);
  });

  test("whose collector is down reports the lost spans once on stderr, with the count and the endpoint", async () => {
    const down = await startTestReceiver();
    const endpoint = down.endpoint;
    await down.close();
    const result = await run({ RAGSCOPE_ENDPOINT: endpoint, REQUESTS: "3", EXIT_MODE: "drain" });
    assert.equal(result.code, 0, "the application is not broken by a missing collector");
    const warnings = result.stderr.split("\n").filter((line) => line.startsWith("ragscope:"));
    assert.equal(warnings.length, 1, result.stderr);
    assert.match(warnings[0]!, new RegExp(`at shutdown 6 spans could not be exported to ${endpoint}/v1/traces \\(.*ECONNREFUSED.*\\) and are lost`));
  });
});

describe("a process stopped by SIGTERM", () => {
  test("exports what it recorded, then exits by the signal", async () => {
    const receiver = await startTestReceiver();
    try {
      const script = `
        import { setupRagscope, traceRequest } from ${JSON.stringify(fileURLToPath(new URL("../../../instrumentation/index.ts", import.meta.url)))};
        setupRagscope();
        await traceRequest({ query: "q" }, async () => "done");
        setInterval(() => undefined, 1000); // a server that would run forever
        console.log("ready");
      `;
      const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { env: { ...process.env, RAGSCOPE_ENDPOINT: receiver.endpoint } });
      await new Promise<void>((resolve) => child.stdout.on("data", (part: Buffer) => part.toString().includes("ready") && resolve()));
      child.kill("SIGTERM");
      const signal = await new Promise<NodeJS.Signals | null>((resolve) => child.on("exit", (_code, exitSignal) => resolve(exitSignal)));
      assert.equal(signal, "SIGTERM");
      assert.deepEqual(receiver.spans.map((span) => span.name), ["rag.request"]);
    } finally {
      await receiver.close();
    }
  });
});

describe("a process that an error ends", () => {
  const crashing = (crash: string) => `
    import { setupRagscope, traceRequest } from ${SDK};
    setupRagscope({ serviceName: "crashing-app" });
    await traceRequest({ query: "q" }, async () => "done");
    await traceRequest({ query: "q" }, async () => "done");
    ${crash}
  `;
  // Exports wait for a batch long enough that the spans are still queued when the error ends the process.
  const environment = (endpoint: string) => ({ RAGSCOPE_ENDPOINT: endpoint, OTEL_BSP_SCHEDULE_DELAY: "600000" });

  test("by an uncaught exception: the lost-spans line says so, and the process still crashes as it would without ragscope", async () => {
    const receiver = await startTestReceiver();
    try {
      const result = await runSdkScript(crashing(`setTimeout(() => { throw new Error("the application's bug"); }, 0);`), environment(receiver.endpoint));
      assert.equal(result.code, 1, "Node's exit code for an uncaught exception");
      assert.match(result.stderr, /Error: the application's bug/, "Node still prints the error");
      assert.match(result.stderr, new RegExp(`ragscope: the process ended on an uncaught exception with 2 spans not yet exported to ${receiver.endpoint}/v1/traces`));
      assert.doesNotMatch(result.stderr, /before process\.exit\(\)/, "the application called no process.exit()");
    } finally {
      await receiver.close();
    }
  });

  test("by an unhandled rejection: the lost-spans line says so", async () => {
    const receiver = await startTestReceiver();
    try {
      const result = await runSdkScript(crashing(`Promise.reject(new Error("a rejection nobody awaited"));`), environment(receiver.endpoint));
      assert.equal(result.code, 1);
      assert.match(result.stderr, /a rejection nobody awaited/);
      assert.match(result.stderr, /ragscope: the process ended on an unhandled promise rejection with 2 spans not yet exported/);
      assert.doesNotMatch(result.stderr, /before process\.exit\(\)/);
    } finally {
      await receiver.close();
    }
  });

  test("handled by the application, which then calls process.exit: the line gives the process.exit advice, as the error did not end it", async () => {
    const receiver = await startTestReceiver();
    try {
      const handled = `process.on("uncaughtException", () => process.exit(3)); setTimeout(() => { throw new Error("handled"); }, 0);`;
      const result = await runSdkScript(crashing(handled), environment(receiver.endpoint));
      assert.equal(result.code, 3);
      assert.match(result.stderr, /ragscope: the process exited with 2 spans not yet exported to .*; await shutdown\(\) on the setup's handle before process\.exit\(\)/);
    } finally {
      await receiver.close();
    }
  });
});
