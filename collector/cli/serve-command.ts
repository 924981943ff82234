/**
 * `ragscope serve`: the collector on the embedded default as a long-running
 * service — OTLP/HTTP receiver (4318), in-process bus, evaluation, the
 * ClickHouse engine in-process (or a server with RAGSCOPE_CLICKHOUSE_URL) —
 * for local development and single-node use, with /metrics, /healthz and
 * /readyz (9464). `--dataset` loads Eval Cases so traces of offline runs
 * (linked by run_id / case_id / case_version) are evaluated against their gold
 * evidence. Stops on SIGINT / SIGTERM, evaluating what is still open (flagged
 * partial) before it exits.
 */
import path from "node:path";
import { loadCollectorConfig, sinkRetryPolicy } from "../config/collector-config.js";
import { formatProblem, loadDatasetFile } from "../dataset/load-dataset.js";
import { registerProcessMetrics } from "../observe/collector-metrics.js";
import { MetricsRegistry } from "../observe/metrics-registry.js";
import { startObserveServer, type ObserveServer } from "../observe/observe-server.js";
import { onlineStageFromEnvironment } from "../online/online-stage-factory.js";
import { signalled } from "../run/collector-process.js";
import { startEmbeddedCollector } from "../run/embedded-collector.js";
import { describeFailure } from "./describe-failure.js";
import { ExitCode } from "./exit-codes.js";

type Output = { log: (line: string) => void; error: (line: string) => void };

export interface ServeOptions {
  dataset: string[];
  dataDir?: string;
  port?: number;
  host?: string;
  metricsPort?: number;
}

const mebibyte = 1024 * 1024;

export async function serveCommand(options: ServeOptions, environment: NodeJS.ProcessEnv, output: Output, stopSignal?: Promise<void>): Promise<number> {
  const datasets = [];
  for (const file of options.dataset) {
    const loaded = await loadDatasetFile(file);
    if (!loaded.ok) {
      output.error(`${file}: the dataset is invalid`);
      for (const problem of loaded.error.problems) output.error(`  ${formatProblem(problem)}`);
      return ExitCode.undecided;
    }
    datasets.push(loaded.value);
  }
  const overrides: Record<string, unknown> = {};
  if (options.dataDir) overrides["clickhouse.dataPath"] = path.resolve(options.dataDir);
  if (options.port !== undefined) overrides["receiver.port"] = options.port;
  if (options.host !== undefined) overrides["receiver.host"] = options.host;
  if (options.metricsPort !== undefined) overrides["observe.port"] = options.metricsPort;
  const config = loadCollectorConfig(environment, overrides, { "clickhouse.dataPath": "--data-dir", "receiver.port": "--port", "receiver.host": "--host", "observe.port": "--metrics-port" });
  if (!config.ok) {
    output.error("ragscope serve: the configuration is invalid");
    for (const line of config.error) output.error(`  ${line}`);
    return ExitCode.undecided;
  }
  const online = onlineStageFromEnvironment(environment, {}, sinkRetryPolicy(config.value));
  if (!online.ok) {
    output.error("ragscope serve: the online evaluation settings are invalid");
    for (const line of online.error) output.error(`  ${line}`);
    return ExitCode.undecided;
  }
  const registry = new MetricsRegistry();
  registerProcessMetrics(registry, { maxHeapBytes: config.value.memory.maxHeapMb * mebibyte });
  const collector = await startEmbeddedCollector(config.value, { online: online.value.online, registry });
  let observe: ObserveServer;
  try {
    observe = await startObserveServer({
      host: config.value.observe.host,
      port: config.value.observe.port,
      registry,
      readiness: [{ name: "clickhouse", check: () => collector.store.ping() }],
    });
  } catch (error) {
    await collector.close();
    for (const line of describeFailure("serve", error, environment)) output.error(line);
    return ExitCode.undecided;
  }
  for (const dataset of datasets) await collector.store.cases.put(dataset.cases);
  output.log(`ragscope serve: OTLP/HTTP on ${collector.receiverUrl}/v1/traces → ${collector.store.describe()}`);
  output.log(`ragscope serve: /metrics, /healthz and /readyz on ${observe.url}`);
  output.log(`ragscope serve: ${datasets.reduce((total, dataset) => total + dataset.cases.length, 0)} Eval Cases loaded; online evaluation: ${online.value.judgeDescription}`);
  await (stopSignal ?? signalled());
  output.log("ragscope serve: stopping; open traces are evaluated (flagged partial)");
  await observe.close();
  await collector.close();
  return ExitCode.ok;
}
