/**
 * An application with its own SIGTERM handler drains: it stops taking requests
 * (server.close()) and lets the ones in flight finish. ragscope must not shut
 * down at that signal: it did, and the in-flight request's later spans — its
 * generation, the request span itself — were dropped without a count or a word,
 * and the collector stored the trace partial, without answer or tokens. And a
 * span that does end after ragscope shut down is counted and said at exit.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { get } from "node:http";
import { fileURLToPath } from "node:url";
import { startTestReceiver, type TestReceiver } from "./otlp-test-receiver.js";

const instrumentation = JSON.stringify(fileURLToPath(new URL("../../../instrumentation/index.ts", import.meta.url)));

interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function start(script: string, endpoint: string): { child: ChildProcessWithoutNullStreams; ended: Promise<Ended>; printed: (text: string) => Promise<string> } {
  const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { env: { ...process.env, RAGSCOPE_ENDPOINT: endpoint } });
  let stdout = "";
  let stderr = "";
  const waiting: { text: string; resolve: (line: string) => void }[] = [];
  child.stdout.on("data", (part: Buffer) => {
    stdout += part.toString();
    for (const wait of waiting.filter((entry) => stdout.includes(entry.text))) wait.resolve(stdout);
  });
  child.stderr.on("data", (part: Buffer) => (stderr += part.toString()));
  const ended = new Promise<Ended>((resolve) => child.on("exit", (code, signal) => resolve({ code, signal, stdout, stderr })));
  const printed = (text: string) => new Promise<string>((resolve) => (stdout.includes(text) ? resolve(stdout) : waiting.push({ text, resolve })));
  return { child, ended, printed };
}

/** The statistics the application printed as it exited. */
function statistics(stdout: string): Record<string, number> {
  const line = stdout.split("\n").find((text) => text.startsWith("statistics "));
  assert.ok(line, `the application printed its statistics:\n${stdout}`);
  return JSON.parse(line.slice("statistics ".length)) as Record<string, number>;
}

describe("an application that handles SIGTERM itself", () => {
  let receiver: TestReceiver;
  before(async () => {
    receiver = await startTestReceiver();
  });
  after(async () => receiver.close());

  test("drains its in-flight request after the signal, and every span of that request is exported", async () => {
    const script = `
      import { createServer } from "node:http";
      import { setupRagscope, traceRequest, traceRetrieve, traceGenerate } from ${instrumentation};
      const ragscope = setupRagscope({ serviceName: "draining" });
      let signalled;
      const signal = new Promise((resolve) => (signalled = resolve));
      const server = createServer(async (request, response) => {
        const answer = await traceRequest({ query: "q" }, async () => {
          await traceRetrieve({ query: "q" }, async () => [{ chunkId: "c1", text: "t" }]);
          console.log("in flight");
          await signal; // the request is still running when SIGTERM comes
          return (await traceGenerate({ model: "m" }, async () => ({ text: "the answer", inputTokens: 10, outputTokens: 3 }))).text;
        });
        response.end(answer);
      });
      // The graceful drain: take no new requests, let the one in flight finish; the process ends when the event loop drains.
      process.on("SIGTERM", () => {
        server.close();
        signalled();
      });
      process.on("exit", () => console.log("statistics " + JSON.stringify(ragscope.statistics())));
      server.listen(0, "127.0.0.1", () => console.log("port " + server.address().port));
    `;
    const before = receiver.spans.length;
    const application = start(script, receiver.endpoint);
    const port = Number(/port (\d+)/.exec(await application.printed("port "))![1]);
    const answered = new Promise<string>((resolve, reject) => {
      get(`http://127.0.0.1:${port}/`, { agent: false }, (response) => {
        let body = "";
        response.on("data", (part: Buffer) => (body += part.toString()));
        response.on("end", () => resolve(body));
      }).on("error", reject);
    });
    await application.printed("in flight");
    application.child.kill("SIGTERM");
    assert.equal(await answered, "the answer");
    const ended = await application.ended;
    assert.equal(ended.code, 0, ended.stderr);
    assert.deepEqual(receiver.spans.slice(before).map((span) => span.name).sort(), ["rag.generate", "rag.request", "rag.retrieve"]);
    assert.equal(ended.stderr, "", "nothing lost, nothing to say");
    const counts = statistics(ended.stdout);
    assert.equal(counts.exported, 3);
    assert.equal(counts.droppedAfterShutdown, 0);
  });
});

describe("a span ended after ragscope began shutting down", () => {
  test("is counted in statistics().droppedAfterShutdown and said on stderr as the process ends", async () => {
    const receiver = await startTestReceiver();
    try {
      const script = `
        import { setupRagscope, traceGenerate } from ${instrumentation};
        const ragscope = setupRagscope({ serviceName: "late" });
        // The application shuts ragscope down while a stage is still running: the stage ends after shutdown began.
        const stopped = ragscope.shutdown();
        await traceGenerate({ model: "m" }, async () => ({ text: "too late" }));
        await stopped;
        process.on("exit", () => console.log("statistics " + JSON.stringify(ragscope.statistics())));
      `;
      const ended = await start(script, receiver.endpoint).ended;
      assert.equal(ended.code, 0, ended.stderr);
      assert.equal(statistics(ended.stdout).droppedAfterShutdown, 1);
      // Said by shutdown's whole-loss line when the span ended before shutdown finished, else by the exit line.
      const said = [
        `ragscope: this process lost 1 spans bound for ${receiver.endpoint}/v1/traces in all: 1 ended after shutdown began`,
        `ragscope: 1 spans ended after ragscope had shut down and were not exported to ${receiver.endpoint}/v1/traces`,
      ];
      assert.ok(said.some((line) => ended.stderr.startsWith(line)), ended.stderr);
    } finally {
      await receiver.close();
    }
  });
});
