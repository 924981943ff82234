/**
 * `ragscope demo`: the whole path on the embedded default, in one command.
 *
 * 1. starts the collector (OTLP/HTTP receiver, in-process bus, evaluation,
 *    chDB under the data folder);
 * 2. stores the dataset's Eval Cases and the run's lineage;
 * 3. runs the example RAG service over the dataset in a child process — a
 *    separate application exporting OTLP/HTTP to the receiver, as a user's
 *    service would — linking each request to run_id / case_id / case_version;
 * 4. waits until every case's trace is evaluated, then prints the summary.
 *
 * The run id is derived from the dataset (`demo-<dataset_id>-<dataset_version>`),
 * and a case's result id from (run_id, case_id, case_version): running the demo
 * twice replaces the first run's rows instead of adding to them.
 */
import { identifierProblem } from "../../../contracts/identifiers.js";
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { EvalCase } from "../../../contracts/eval-case.js";
import { sinkRetryPolicy } from "../config/collector-config.js";
import { collectorSettings, judgeEndpointSettings, onlineSettings } from "../config/settings-schema.js";
import { nodeArgumentsFor, packageFiles, packageRoot } from "../config/package-files.js";
import { describeLoadFailure, loadDatasetFile } from "../dataset/load-dataset.js";
import { formatSummary } from "../../../report/format-summary.js";
import type { RunSummary } from "../../../store/ports/run-reader.js";
import { onlineStageFactory } from "../online/online-stage-factory.js";
import { startEmbeddedCollector } from "../run/embedded-collector.js";
import { reportInvalidSettings, settingsForCommand, type SettingsRequest } from "./command-settings.js";
import { resultsKeyedWithoutTenant } from "./results-keyed-without-tenant.js";

export const defaultDemoDataset = packageFiles.demoDataset;

export interface DemoOptions {
  dataset: string;
  dataDir?: string;
  runId?: string;
  timeoutMs: number;
}

export interface DemoOutcome {
  summary: RunSummary;
  storedIn: string;
}

type Output = { log: (line: string) => void; error: (line: string) => void };

export async function runDemo(options: DemoOptions, request: SettingsRequest, output: Output): Promise<DemoOutcome | null> {
  const loaded = await loadDatasetFile(options.dataset);
  if (!loaded.ok) {
    for (const line of describeLoadFailure(loaded.error, "the dataset is invalid")) output.error(`ragscope demo: ${line}`);
    return null;
  }
  const dataset = loaded.value;
  const first = dataset.cases[0]!;
  const runId = options.runId ?? `demo-${dataset.datasetId ?? first.dataset_id}-${dataset.datasetVersion ?? first.dataset_version}`;
  const runIdProblem = identifierProblem(runId);
  if (runIdProblem !== null) {
    // The collector refuses such a run id on every span: the demo would run and store none of its results under it.
    output.error(`ragscope demo: run id "${runId}": ${runIdProblem}; give --run-id an id of letters, digits and _ - . : / @ +`);
    return null;
  }

  const resolved = await settingsForCommand("demo", request, {
    // A random receiver port: the demo must not collide with a collector already running on 4318.
    // No OTLP/gRPC port: the example service sends OTLP/HTTP, and nothing else sends here.
    // An offline run judges and measures every case (sample rates 1): a dataset is small and each case counts.
    // The judge is the heuristic one unless RAGSCOPE_JUDGE_BASE_URL / _MODEL name an endpoint.
    fixed: { "receiver.port": 0, "receiver.grpcPort": "off", "assembler.quietPeriodMs": 300, "judge.enabled": true, "sampling.defaultRate": 1, "embeddingsEndpoint.sampleRate": 1 },
    flags: { "clickhouse.dataPath": { value: options.dataDir, flag: "--data-dir" } },
  });
  if (!resolved.ok) {
    reportInvalidSettings("demo", resolved.error, output);
    return null;
  }
  const config = collectorSettings(resolved.value.settings);
  const online = onlineStageFactory(onlineSettings(resolved.value.settings), judgeEndpointSettings(resolved.value.settings), sinkRetryPolicy(config));
  const collector = await startEmbeddedCollector(config, { online: online.online });
  const storedIn = collector.store.describe();
  try {
    const earlier = await resultsKeyedWithoutTenant(collector.store.traces, runId, dataset.cases);
    if (earlier.length > 0) {
      const named = earlier.length <= 3 ? earlier.join(", ") : `${earlier.slice(0, 3).join(", ")} and ${earlier.length - 3} more`;
      output.error(
        `ragscope demo: ${storedIn} holds run ${runId} as an earlier release stored it (${earlier.length} case${earlier.length === 1 ? "" : "s"}: ${named}): ` +
          "its results' ids leave out their tenant, which this release's include, so running it again would store each case beside its earlier result and count it twice. " +
          "Give --run-id a new run id, or --data-dir a new folder",
      );
      return null;
    }
    await collector.store.cases.put(dataset.cases);
    await collector.store.runs.record({
      run_id: runId,
      dataset_id: first.dataset_id,
      dataset_version: first.dataset_version,
      corpus_version: first.environment_requirements.corpus_version ?? null,
      // What the example service runs (examples/policy-assistant): the run, not the case, owns these versions.
      retriever_version: "bm25-bigram-v1",
      reranker_version: null,
      prompt_version: "policy-answer-v3",
      generator_model: "policy-extractive-sim-1",
      started_at: new Date().toISOString(),
    });
    output.log(`Collector listening on ${collector.receiverUrl}; storing in ${storedIn}; judging with the ${online.judgeDescription}`);
    output.log(`Running the example RAG service over ${dataset.cases.length} cases (run ${runId})…`);
    const exitCode = await runExample(dataset.cases, runId, collector.receiverUrl, output);
    if (exitCode !== 0) {
      output.error(`ragscope demo: the example service exited with code ${exitCode}`);
      return null;
    }
    const deadline = Date.now() + options.timeoutMs;
    let timedOut = false;
    while ((await collector.store.reader.countCaseResults(runId)) < dataset.cases.length) {
      if (Date.now() > deadline) {
        await collector.flush();
        output.error(`ragscope demo: timed out waiting for ${dataset.cases.length} evaluated cases; open traces were evaluated as partial`);
        timedOut = true;
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await collector.waitUntilIdle(options.timeoutMs);
    const summary = await collector.store.reader.readRunSummary(runId);
    output.log("");
    output.log(formatSummary(summary, storedIn));
    output.log(nextSteps(runId, options.dataDir));
    // The summary is printed all the same, but a run that did not finish evaluating is no finished demo (exit 2).
    return timedOut ? null : { summary, storedIn };
  } finally {
    await collector.close();
  }
}

/**
 * Where to look next, as commands to copy: the demo's summary is a terminal's worth, and a new user did not know
 * that the web UI, the report and the gate read the same store (with the same --data-dir, when one was given).
 */
function nextSteps(runId: string, dataDir: string | undefined): string {
  const shellWord = (word: string) => (/^[\w./:@-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`);
  const where = dataDir === undefined ? "" : ` --data-dir ${shellWord(dataDir)}`;
  return [
    "Next:",
    `  npx ragscope serve${where}    the web UI on this data: each trace, the failures by root cause, the runs (the address it prints)`,
    `  npx ragscope report${where}   the dashboards as one HTML file`,
    `  npx ragscope gate --run ${shellWord(runId)}${where}   the release gate on this run`,
  ].join("\n");
}

async function runExample(cases: EvalCase[], runId: string, endpoint: string, output: Output): Promise<number> {
  const folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-demo-"));
  const casesFile = path.join(folder, "cases.json");
  try {
    await writeFile(
      casesFile,
      JSON.stringify({
        runId,
        cases,
      }),
    );
    const child = spawn(process.execPath, [...nodeArgumentsFor("examples/policy-assistant/run-cases"), casesFile], {
      cwd: packageRoot,
      env: { ...process.env, RAGSCOPE_ENDPOINT: endpoint, OTEL_SERVICE_NAME: "policy-assistant" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout.on("data", (chunk: Buffer) => output.log(chunk.toString().trimEnd()));
    child.stderr.on("data", (chunk: Buffer) => output.error(chunk.toString().trimEnd()));
    return await new Promise<number>((resolve) => child.on("exit", (code) => resolve(code ?? 1)));
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}
