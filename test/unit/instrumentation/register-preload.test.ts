/**
 * `node --import ragscope/register app.js`: configured by environment
 * variables only, it traces an application that has no setup code, flushes at
 * exit, and never stops the application from starting.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { startTestReceiver, type TestReceiver } from "./otlp-test-receiver.js";

const register = fileURLToPath(new URL("../../../instrumentation/register.ts", import.meta.url));
const app = fileURLToPath(new URL("./fixtures/preloaded-app.ts", import.meta.url));
const appWithOwnSetup = fileURLToPath(new URL("./fixtures/preloaded-app-with-own-setup.ts", import.meta.url));

function run(environment: Record<string, string>, application = app): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", "--import", register, application], { env: { ...process.env, ...environment } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (part: Buffer) => (stdout += part.toString()));
    child.stderr.on("data", (part: Buffer) => (stderr += part.toString()));
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("ragscope/register", () => {
  let receiver: TestReceiver;
  before(async () => {
    receiver = await startTestReceiver();
  });
  after(async () => receiver.close());

  test("environment variables configure it; spans are flushed when the application ends", async () => {
    const result = await run({ RAGSCOPE_ENDPOINT: receiver.endpoint, RAGSCOPE_SERVICE_NAME: "preloaded", RAGSCOPE_PROTOCOL: "http/json", RAGSCOPE_REDACTION: "replace" });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /answer: done/);
    assert.deepEqual(receiver.spans.map((span) => span.name).sort(), ["rag.request", "rag.retrieve"]);
    assert.equal(receiver.spans[0]!.resource["service.name"], "preloaded");
    const retrieve = receiver.spans.find((span) => span.name === "rag.retrieve")!;
    assert.equal(retrieve.attributes["retrieval.documents.0.document.content"], "call [REDACTED:phone]", "redacted before export");
  });

  test("the application's own setupRagscope({ serviceName, captureText: false }) after the preload: no text leaves, the ignored service name is said once on stderr", async () => {
    receiver.spans.length = 0;
    const result = await run({ RAGSCOPE_ENDPOINT: receiver.endpoint, RAGSCOPE_PROTOCOL: "http/json", APP_SETUP_OPTIONS: JSON.stringify({ serviceName: "notext-svc", captureText: false }) }, appWithOwnSetup);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /answer: Call 13812345678 for the refund/);
    assert.deepEqual(receiver.spans.map((span) => span.name).sort(), ["rag.generate", "rag.request", "rag.retrieve"]);
    const exported = JSON.stringify(receiver.spans.map((span) => span.attributes));
    for (const text of ["Refunds reach the card", "Answer from:", "for the refund"]) {
      assert.ok(!exported.includes(text), `captureText: false was asked, yet "${text}" was exported: ${exported}`);
    }
    assert.match(result.stderr, /Applied to it, as the stricter privacy options: captureText false\./);
    const ignored = /serviceName "notext-svc" \(running: "rag-service"; for the preload set RAGSCOPE_SERVICE_NAME\)/g;
    assert.equal(result.stderr.match(ignored)?.length, 1, `named once, for two calls: ${result.stderr}`);
    assert.match(result.stderr, /drop the preload \(--import ragscope\/register\)/);
  });

  test("the application's stricter redaction and text length apply to the preload's running setup", async () => {
    receiver.spans.length = 0;
    const result = await run({ RAGSCOPE_ENDPOINT: receiver.endpoint, RAGSCOPE_PROTOCOL: "http/json", RAGSCOPE_REDACTION: "off", APP_SETUP_OPTIONS: JSON.stringify({ maxTextLength: 10, redaction: { mode: "replace" } }) }, appWithOwnSetup);
    assert.equal(result.code, 0, result.stderr);
    const exported = JSON.stringify(receiver.spans.map((span) => span.attributes));
    assert.ok(!exported.includes("13812"), `the phone number, whole or in part, was exported: ${exported}`);
    const generate = receiver.spans.find((span) => span.name === "rag.generate")!;
    assert.equal(generate.attributes["ragscope.answer"] ?? generate.attributes["output.value"], "Call ");
    assert.match(result.stderr, /maxTextLength 10; redaction replace/);
  });

  test("a bad variable is reported and the application runs untraced", async () => {
    const result = await run({ RAGSCOPE_ENDPOINT: receiver.endpoint, RAGSCOPE_SAMPLE_RATE: "often" });
    assert.equal(result.code, 0);
    assert.match(result.stdout, /answer: done/);
    assert.match(result.stderr, /RAGSCOPE_SAMPLE_RATE must be a number between 0 and 1/);
  });
});
