/**
 * A team adopts ragscope for its own service, the way the README says: pack
 * the package, install the tarball into a fresh application, write the
 * README's examples into it verbatim, start `ragscope serve` from the installed
 * package, run each example to its normal end, and find every request's Case
 * Result stored and evaluated. Covers the stage wrappers with `setupRagscope`,
 * the LangChain.js adapter, `node --import ragscope/register`, and the eval
 * example's dataset and task through the installed `ragscope eval`; and what a
 * newcomer gets wrong: the printed traces URL as the endpoint, a path the
 * receiver does not serve, stage values of the wrong shape, spans the
 * receiver refuses in an accepted request; a CommonJS
 * application; a TypeScript application's module resolution modes.
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { openClickHouse, type ClickHouseConnection } from "../../../store/clickhouse/clickhouse-connection.js";
import { createApplication, packProject } from "./packed-package.js";
import { readmeExamples } from "./readme-examples.js";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
/** Bounds for waiting on processes; generous because the machine is shared. Not assertions on speed. */
const WAIT_MS = 120_000;

interface Started {
  child: ChildProcessWithoutNullStreams;
  receiver: string;
  metrics: string;
  output: () => string;
}

function startServe(application: string, dataDir: string): Promise<Started> {
  const child = spawn(path.join(application, "node_modules/.bin/ragscope"), ["serve", "--port", "0", "--metrics-port", "0", "--data-dir", dataDir], {
    cwd: application,
    env: { ...process.env, RAGSCOPE_QUIET_PERIOD_MS: "200", RAGSCOPE_CLICKHOUSE_URL: "" },
  });
  let output = "";
  child.stdout.on("data", (part: Buffer) => (output += part.toString()));
  child.stderr.on("data", (part: Buffer) => (output += part.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`ragscope serve did not start:\n${output}`)), WAIT_MS);
    child.stdout.on("data", () => {
      const receiver = /OTLP\/HTTP on (http:\/\/[^/\s]+)\/v1\/traces/.exec(output)?.[1];
      const metrics = /\/readyz on (http:\/\/\S+)/.exec(output)?.[1];
      if (receiver && metrics) {
        clearTimeout(timer);
        resolve({ child, receiver, metrics, output: () => output });
      }
    });
    child.on("exit", (code) => reject(new Error(`ragscope serve exited with ${code}:\n${output}`)));
  });
}

function runNode(application: string, args: string[], environment: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: application, env: { ...process.env, ...environment } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (part: Buffer) => (stdout += part.toString()));
    child.stderr.on("data", (part: Buffer) => (stderr += part.toString()));
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

/** Reads ragscope_traces_written_total from serve's /metrics until it reaches `count` (bounded wait). */
async function waitForWrittenTraces(metricsUrl: string, count: number): Promise<number> {
  const deadline = Date.now() + WAIT_MS;
  let written = 0;
  while (Date.now() < deadline) {
    const text = await (await fetch(`${metricsUrl}/metrics`)).text();
    written = Number(/^ragscope_traces_written_total (\d+)$/m.exec(text)?.[1] ?? 0);
    if (written >= count) return written;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return written;
}

describe("adopting ragscope in a fresh application", () => {
  let folder: string;
  let application: string;
  let dataDir: string;
  let serve: Started;
  const expected = new Map<string, number>();

  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-adoption-"));
    const { tarball } = await packProject(projectRoot, folder);
    const lock = JSON.parse(await readFile(path.join(projectRoot, "package-lock.json"), "utf8")) as { packages: Record<string, { version: string }> };
    application = path.join(folder, "my-rag-app");
    const locked = (name: string) => `${name}@${lock.packages[`node_modules/${name}`]!.version}`;
    // TypeScript and Node's types: the application's own, to check that the package's declarations resolve in it.
    await createApplication(application, tarball!, [locked("@langchain/core"), locked("typescript"), locked("@types/node")]);
    for (const [file, source] of await readmeExamples(path.join(projectRoot, "README.md"))) await writeFile(path.join(application, file), source);
    dataDir = path.join(folder, "data");
    serve = await startServe(application, dataDir);
  });

  after(async () => {
    if (serve && serve.child.exitCode === null) {
      serve.child.kill("SIGTERM");
      await new Promise((resolve) => serve.child.on("exit", resolve));
    }
    await rm(folder, { recursive: true, force: true });
  });

  test("the installed package is the compiled one: no TypeScript sources, no tests", async () => {
    const installed = path.join(application, "node_modules/ragscope");
    const manifest = JSON.parse(await readFile(path.join(installed, "package.json"), "utf8")) as { exports: Record<string, { default: string }> };
    for (const entry of Object.values(manifest.exports)) assert.match(entry.default, /^\.\/dist\/.+\.js$/);
    await assert.rejects(readFile(path.join(installed, "test/run-tests.ts")), { code: "ENOENT" });
    await assert.rejects(readFile(path.join(installed, "collector/wiring/cli/main.ts")), { code: "ENOENT" });
  });

  test("runExperiment from code checks the project's gate file by default, as ragscope eval does: a run is never passed unchecked", async () => {
    await writeFile(path.join(application, "experiment-cases.yaml"), ["- id: refund-window", "  question: How long is the refund window?", "  reference_answer: 30 days", "- id: shipping", "  question: Do you ship abroad?", "  reference_answer: Yes, to the EU", ""].join("\n"));
    await writeProgram("experiment.mjs", [
      'import { runExperiment } from "ragscope/experiments";',
      'const result = await runExperiment({ dataset: "experiment-cases.yaml", task: async () => "I do not know.", runId: "from-code", dataDir: "experiment-data" });',
      "console.log(JSON.stringify({ decision: result.decision, passed: result.gate.passed, metrics: result.gate.rules.map((rule) => rule.rule.metric) }));",
    ]);
    const ran = await runNode(application, ["experiment.mjs"], { RAGSCOPE_CLICKHOUSE_URL: "" });
    assert.equal(ran.code, 0, ran.stderr);
    const result = JSON.parse(ran.stdout.trim().split("\n").at(-1)!) as { decision: string; passed: boolean; metrics: string[] };
    assert.ok(result.metrics.includes("recall_at_5") && result.metrics.includes("timeout_rate"), `the project's gate file: ${result.metrics.join(", ")}`);
    assert.equal(result.passed, false, "nothing a gate rule needs was measured");
    assert.equal(result.decision, "blocked");
  });

  test("the README's eval example (cases.yaml, eval-task.mjs) through the installed ragscope eval: both cases pass, the gate blocks on the rules nothing measured", async () => {
    const output = path.join(folder, "readme-eval.json");
    const ragscope = path.join(application, "node_modules/ragscope/bin/ragscope.js");
    const ran = await runNode(application, [ragscope, "eval", "--dataset", "cases.yaml", "--task", "./eval-task.mjs", "--run-id", "readme-eval", "--data-dir", path.join(folder, "eval-data"), "--output", output], { RAGSCOPE_CLICKHOUSE_URL: "", RAGSCOPE_CONFIG: "" });
    assert.equal(ran.code, 1, `blocked, as the README says:\n${ran.stdout}\n${ran.stderr}`);
    assert.match(ran.stdout, /Decision: BLOCKED/);
    const result = JSON.parse(await readFile(output, "utf8")) as { case_results: { case_id: string; quality_status: string; output: string }[]; evaluation_results: { metric_values: Record<string, number | null> }[] };
    const verdicts = Object.fromEntries(result.case_results.map((caseResult) => [caseResult.case_id, caseResult.quality_status]));
    assert.deepEqual(verdicts, { refund_speed: "passed", points_expiry: "passed" });
    // The toy retrieval ranks each case's one gold chunk first: recall@5 is 1 by definition for both.
    const recalls = result.evaluation_results.map((evaluation) => evaluation.metric_values.recall_at_5).filter((value) => value !== undefined);
    assert.deepEqual(recalls, [1, 1]);
  });

  test("the README's stage-wrapper example runs to its normal end and exports every span", async () => {
    // The export worker on, whatever this machine's core count: it must load from the installed package (else stderr says so).
    const result = await runNode(application, ["app.mjs"], { RAGSCOPE_ENDPOINT: serve.receiver, RAGSCOPE_EXPORT_WORKER: "true" });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stderr, "", "no warning: nothing was lost");
    assert.match(result.stdout, /within 7 days/);
    expected.set("support-bot", 2);
    assert.equal(await waitForWrittenTraces(serve.metrics, 2), 2);
  });

  test("the README's LangChain.js example, with the SDK set up first, is traced", async () => {
    const result = await runNode(application, ["langchain-app.mjs"], { RAGSCOPE_ENDPOINT: serve.receiver });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stderr, "");
    expected.set("langchain-bot", 2);
    assert.equal(await waitForWrittenTraces(serve.metrics, 4), 4);
  });

  test("the README's preload example: node --import ragscope/register, no setup code", async () => {
    const result = await runNode(application, ["--import", "ragscope/register", "preloaded-app.mjs"], { RAGSCOPE_ENDPOINT: serve.receiver, RAGSCOPE_SERVICE_NAME: "preloaded-bot" });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stderr, "");
    expected.set("preloaded-bot", 1);
    assert.equal(await waitForWrittenTraces(serve.metrics, 5), 5);
  });

  test("a LangChain handler used without setup warns once instead of recording nothing silently", async () => {
    const source = (await readFile(path.join(application, "langchain-app.mjs"), "utf8")).replace(/^const ragscope = setupRagscope\(.*\);$/m, "const ragscope = { shutdown: async () => {} };");
    await writeFile(path.join(application, "langchain-without-setup.mjs"), source);
    const result = await runNode(application, ["langchain-without-setup.mjs"], { RAGSCOPE_ENDPOINT: serve.receiver });
    assert.equal(result.code, 0, result.stderr);
    const warnings = result.stderr.split("\n").filter((line) => line.startsWith("ragscope:"));
    assert.equal(warnings.length, 1, result.stderr);
    assert.match(warnings[0]!, /no OpenTelemetry tracer provider is set up.*call setupRagscope\(\)/);
  });

  /** Traces written so far by every test above: what serve's counter must reach next. */
  const expectedTotal = () => [...expected.values()].reduce((sum, count) => sum + count, 0);
  /** A program of the application, one line an element. */
  const writeProgram = (file: string, lines: string[]) => writeFile(path.join(application, file), [...lines, ""].join("\n"));
  /** `service` sent `count` requests: waits until serve wrote every trace expected so far. */
  async function expectWritten(service: string, count: number): Promise<void> {
    expected.set(service, count);
    assert.equal(await waitForWrittenTraces(serve.metrics, expectedTotal()), expectedTotal());
  }

  test("the OTLP address serve prints, /v1/traces included, works as RAGSCOPE_ENDPOINT (it used to become …/v1/traces/v1/traces: 404, all lost)", async () => {
    const result = await runNode(application, ["--import", "ragscope/register", "preloaded-app.mjs"], { RAGSCOPE_ENDPOINT: `${serve.receiver}/v1/traces`, RAGSCOPE_SERVICE_NAME: "full-url-bot" });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stderr, "");
    await expectWritten("full-url-bot", 1);
  });

  test("an endpoint with a path the receiver does not serve: stderr gives the receiver's own message, decoded, and what to set", async () => {
    const result = await runNode(application, ["--import", "ragscope/register", "preloaded-app.mjs"], { RAGSCOPE_ENDPOINT: `${serve.receiver}/otlp`, RAGSCOPE_SERVICE_NAME: "wrong-path-bot" });
    assert.equal(result.code, 0, result.stderr);
    // The receiver's google.rpc.Status is protobuf: printed as text it read `HTTP 404: Ano such path …`.
    assert.match(result.stderr, /the collector answered HTTP 404 \(no such path "\/otlp\/v1\/traces": traces go to POST \/v1\/traces\); .*RAGSCOPE_ENDPOINT/);
  });

  test("stage values of the wrong shape are said on stderr, once per stage, while the application gets its values", async () => {
    await writeProgram("sloppy-app.mjs", [
      'import { setupRagscope, traceRequest, traceRetrieve, traceGenerate, instrumentationErrors } from "ragscope/instrumentation";',
      'const ragscope = setupRagscope({ serviceName: "sloppy-bot" });',
      "const answer = await traceRequest({ query: \"When do points expire?\" }, async () => {",
      "  // LangChain-style documents where ragscope expects { chunkId, text, score }, and a string where it expects { text }.",
      '  await traceRetrieve({ query: "points" }, () => [{ id: "points-1", pageContent: "Points expire after 12 months." }, { id: "refund-1", pageContent: "Refunds take 7 days." }]);',
      '  return traceGenerate({ model: "toy-model" }, () => "Points expire after 12 months.");',
      "});",
      "console.log(answer, instrumentationErrors());",
      "await ragscope.shutdown();",
    ]);
    const result = await runNode(application, ["sloppy-app.mjs"], { RAGSCOPE_ENDPOINT: serve.receiver });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout.trim(), "Points expire after 12 months. 3", "the application's value unchanged; three problems counted");
    const lines = result.stderr.trim().split("\n");
    assert.equal(lines.filter((line) => line.startsWith("ragscope: rag.retrieve: ")).length, 1, `once for the retrieval's two bad chunks:\n${result.stderr}`);
    assert.match(result.stderr, /^ragscope: rag\.retrieve: .*not a chunk record with a non-empty string chunkId.*instrumentationErrors\(\)/m);
    assert.match(result.stderr, /^ragscope: rag\.generate: expected a generation record, got string/m);
    await expectWritten("sloppy-bot", 1);
  });

  test("spans the receiver refuses in an accepted request (OTLP partial success) are counted as lost and said, not counted as exported", async () => {
    await writeProgram("clock-ahead-app.mjs", [
      'import { trace } from "@opentelemetry/api";',
      'import { setupRagscope, traceRequest, traceRetrieve } from "ragscope/instrumentation";',
      'const ragscope = setupRagscope({ serviceName: "clock-ahead-bot" });',
      "// A span dated two hours ahead, past the receiver's allowance (RAGSCOPE_MAX_FUTURE_SPAN_SECONDS, 3600): refused alone.",
      "const later = Date.now() + 2 * 3600 * 1000;",
      'trace.getTracer("my-app").startSpan("clock-ahead", { startTime: later }).end(later + 5);',
      'await traceRequest({ query: "q" }, () => traceRetrieve({ query: "q" }, () => [{ chunkId: "points-1", text: "Points expire after 12 months.", score: 1 }]));',
      "await ragscope.shutdown();",
      "console.log(JSON.stringify(ragscope.statistics()));",
    ]);
    const result = await runNode(application, ["clock-ahead-app.mjs"], { RAGSCOPE_ENDPOINT: serve.receiver, RAGSCOPE_EXPORT_WORKER: "true" });
    assert.equal(result.code, 0, result.stderr);
    const statistics = JSON.parse(result.stdout.trim()) as { exported: number; failed: number };
    assert.deepEqual({ exported: statistics.exported, failed: statistics.failed }, { exported: 2, failed: 1 });
    assert.match(result.stderr, /^ragscope: at shutdown 1 spans could not be exported to .* \(the collector refused 1 of 3 spans: .*\) and are lost$/m);
    await expectWritten("clock-ahead-bot", 1);
  });

  test("a CommonJS application requires the SDK (Node's require of ES modules, 20.19 and later)", { skip: process.features.require_module ? false : "this Node cannot require ES modules" }, async () => {
    await writeProgram("common-app.cjs", [
      'const { setupRagscope, traceRequest, traceRetrieve } = require("ragscope/instrumentation");',
      'const ragscope = setupRagscope({ serviceName: "commonjs-bot" });',
      'traceRequest({ query: "q" }, () => traceRetrieve({ query: "q" }, () => [{ chunkId: "points-1", text: "Points expire after 12 months.", score: 1 }]))',
      "  .then(() => ragscope.shutdown())",
      '  .then(() => console.log("sent"));',
    ]);
    const result = await runNode(application, ["common-app.cjs"], { RAGSCOPE_ENDPOINT: serve.receiver });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stderr, "");
    assert.equal(result.stdout.trim(), "sent");
    await expectWritten("commonjs-bot", 1);
  });

  test("a TypeScript application type-checks against every exports entry with moduleResolution node16, nodenext and bundler", async () => {
    await writeProgram("typed-app.ts", [
      'import { setupRagscope, traceRequest, traceRetrieve, traceGenerate, type ChunkRecord, type RagscopeHandle } from "ragscope/instrumentation";',
      'import { RagscopeCallbackHandler } from "ragscope/langchain";',
      'import { runExperiment } from "ragscope/experiments";',
      'import type { CaseResult } from "ragscope/contracts";',
      'const ragscope: RagscopeHandle = setupRagscope({ serviceName: "typed-bot" });',
      'const chunks: ChunkRecord[] = [{ chunkId: "points-1", text: "Points expire after 12 months.", score: 1 }];',
      'export const answer: string = await traceRequest({ query: "q" }, async () => {',
      '  await traceRetrieve({ query: "q" }, () => chunks);',
      '  return (await traceGenerate({ model: "toy-model" }, () => ({ text: "12 months" }))).text;',
      "});",
      "export const handler = new RagscopeCallbackHandler();",
      "export const experiment: typeof runExperiment = runExperiment;",
      "export let stored: CaseResult | undefined;",
      "// @ts-expect-error: the types are the package's, not any: a wrong option is an error",
      "setupRagscope({ serviceNme: 1 });",
      "await ragscope.shutdown();",
    ]);
    const typescript = path.join(application, "node_modules/typescript/bin/tsc");
    // The package's declarations themselves are checked once (they import the types of its dependencies); the other modes check resolution.
    for (const [module, resolution, skipLibCheck] of [["node16", "node16", "false"], ["nodenext", "nodenext", "true"], ["esnext", "bundler", "true"]] as const) {
      const checked = await runNode(application, [typescript, "--noEmit", "--strict", "--skipLibCheck", skipLibCheck, "--target", "es2022", "--module", module, "--moduleResolution", resolution, "--types", "node", "typed-app.ts"], {});
      assert.equal(checked.code, 0, `moduleResolution ${resolution}:\n${checked.stdout}${checked.stderr}`);
    }
    // TypeScript 6 and later load no @types package unless asked (`types` defaults to []): the package's declarations,
    // which name Node's types, must bring them in themselves. Before, this failed with "Cannot find namespace 'NodeJS'".
    await writeFile(
      path.join(application, "tsconfig.no-types.json"),
      JSON.stringify({ compilerOptions: { noEmit: true, strict: true, skipLibCheck: false, target: "es2022", module: "nodenext", moduleResolution: "nodenext", types: [] }, files: ["typed-app.ts"] }),
    );
    const withoutTypes = await runNode(application, [typescript, "-p", "tsconfig.no-types.json"], {});
    assert.equal(withoutTypes.code, 0, `types []:\n${withoutTypes.stdout}${withoutTypes.stderr}`);
  });

  test("after serve stops, every request's Case Result is in the store, complete and evaluated", async () => {
    serve.child.kill("SIGTERM");
    const code = await new Promise<number | null>((resolve) => serve.child.on("exit", resolve));
    assert.equal(code, 0, serve.output());
    let connection: ClickHouseConnection | undefined;
    try {
      connection = await openClickHouse({ url: null, username: "default", password: "", database: "ragscope", dataPath: dataDir });
      const rows = await (
        await connection.client.query({
          query: `SELECT service_name, count() AS results, countIf(partial_trace = 0) AS complete, countIf(execution_status = 'succeeded' OR execution_status = 'completed') AS executed,
                         groupArray(case_result_id) AS ids
                  FROM ragscope.case_results FINAL GROUP BY service_name ORDER BY service_name`,
          format: "JSONEachRow",
        })
      ).json<{ service_name: string; results: string; complete: string; ids: string[] }>();
      assert.deepEqual(Object.fromEntries(rows.map((row) => [row.service_name, Number(row.results)])), Object.fromEntries([...expected].sort()));
      for (const row of rows) assert.equal(Number(row.complete), Number(row.results), `${row.service_name}: every trace complete, none flagged partial`);
      const evaluated = await (
        await connection.client.query({
          query: "SELECT case_result_id, count() AS evaluations FROM ragscope.evaluation_results FINAL WHERE case_result_id IN {ids:Array(String)} GROUP BY case_result_id",
          query_params: { ids: rows.flatMap((row) => row.ids) },
          format: "JSONEachRow",
        })
      ).json<{ case_result_id: string; evaluations: string }>();
      assert.equal(evaluated.length, expectedTotal(), "every Case Result has evaluation results");
      for (const row of evaluated) assert.ok(Number(row.evaluations) > 0);
      const retrieved = await (
        await connection.client.query({
          query: `SELECT length(JSONExtractArrayRaw(payload, 'rag_observation', 'pre_rerank_chunks')) AS retrieved, length(JSONExtractArrayRaw(payload, 'rag_observation', 'retrieved_chunks')) AS reranked
                  FROM ragscope.case_results FINAL WHERE service_name = 'support-bot'`,
          format: "JSONEachRow",
        })
      ).json<{ retrieved: string; reranked: string }>();
      // The README example retrieves 3 chunks and reranks them to 2: both rankings are on each Case Result.
      assert.deepEqual(retrieved.map((row) => [Number(row.retrieved), Number(row.reranked)]), [[3, 2], [3, 2]]);
    } finally {
      await connection?.close();
    }
  });
});
