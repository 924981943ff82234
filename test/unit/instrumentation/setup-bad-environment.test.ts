/**
 * `setupRagscope()` called by the application's own code, in a process whose environment holds a variable ragscope
 * cannot use: the application starts and runs untraced, with one line on stderr saying what to change. Before, the
 * call threw, and an application that sets up tracing first did not start at all — for an
 * OTEL_EXPORTER_OTLP_PROTOCOL=grpc set for another exporter, say. An invalid option, written in the application's
 * code, still throws where it is written.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";

const instrumentation = fileURLToPath(new URL("../../../instrumentation/index.ts", import.meta.url));

/** A tiny application: sets ragscope up (with `options` as JSON), runs one traced request, prints the handle's mode. */
function application(environment: Record<string, string>, options = "{}") {
  const program = [
    `import { setupRagscope, traceRequest } from ${JSON.stringify(instrumentation)};`,
    `const ragscope = setupRagscope(${options});`,
    `const answer = await traceRequest({ query: "q" }, async () => "an answer");`,
    "console.log(`mode ${ragscope.mode}, answer ${answer}, exported ${ragscope.statistics().exported}`);",
    "await ragscope.shutdown();",
  ].join("\n");
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("RAGSCOPE_") && !name.startsWith("OTEL_")));
  const child = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", program], { encoding: "utf8", env: { ...inherited, RAGSCOPE_FLUSH_ON_EXIT: "false", ...environment }, timeout: 60_000 });
  return { status: child.status, stdout: child.stdout, stderr: child.stderr };
}

describe("setupRagscope with an environment variable it cannot use", () => {
  for (const [variable, value, said] of [
    ["OTEL_EXPORTER_OTLP_PROTOCOL", "grpc", /OTEL_EXPORTER_OTLP_PROTOCOL "grpc" is not supported; use "http\/protobuf" or "http\/json"/],
    ["RAGSCOPE_SAMPLE_RATE", "abc", /RAGSCOPE_SAMPLE_RATE must be a number between 0 and 1/],
    ["RAGSCOPE_ENDPOINT", "localhost:4318", /endpoint "localhost:4318" must be an http:\/\/ or https:\/\/ URL/],
  ] as const) {
    test(`${variable}=${value}: the application starts and runs untraced, and stderr says why`, () => {
      const result = application({ [variable]: value });
      assert.equal(result.status, 0, result.stderr);
      assert.equal(result.stdout.trim(), "mode untraced, answer an answer, exported 0");
      assert.match(result.stderr, /^ragscope: not started, the application runs untraced: setupRagscope: /);
      assert.match(result.stderr, said);
      assert.doesNotMatch(result.stderr, /no OpenTelemetry tracer provider is set up/, "no second line telling to call the setupRagscope() the application called");
    });
  }

  test("an invalid option in the application's code still throws where it is written", () => {
    const result = application({}, `{ protocol: "grpc" }`);
    assert.notEqual(result.status, 0);
    assert.match(result.stderr, /setupRagscope: protocol "grpc" is not supported/);
    assert.equal(result.stdout, "");
  });
});
