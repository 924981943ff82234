/**
 * `ragscope serve`: the collector on the embedded default as a long-running
 * service — OTLP/HTTP receiver (4318) and OTLP/gRPC receiver (4317), in-process bus, evaluation, the
 * ClickHouse engine in-process (or a server with RAGSCOPE_CLICKHOUSE_URL) —
 * for local development and single-node use, with /metrics, /healthz and
 * /readyz (9464), which listen from before the store opens (its migrations)
 * to the end of the stop (service-phase.ts). `--dataset` loads Eval Cases so traces of offline runs
 * (linked by run_id / case_id / case_version) are evaluated against their gold
 * evidence. Stops on SIGINT / SIGTERM, evaluating what is still open (flagged
 * partial) before it exits.
 */
import { sinkRetryPolicy } from "../config/collector-config.js";
import { collectorSettings, judgeEndpointSettings, onlineSettings } from "../config/settings-schema.js";
import { describeLoadFailure, loadDatasetFile } from "../dataset/load-dataset.js";
import { registerProcessMetrics } from "../observe/collector-metrics.js";
import { MetricsRegistry } from "../observe/metrics-registry.js";
import { startObserveServer, type ObserveServer } from "../observe/observe-server.js";
import { onlineStageFactory } from "../online/online-stage-factory.js";
import { signalled } from "../run/collector-process.js";
import { startEmbeddedCollector, type EmbeddedCollector, type EmbeddedStopOutcome } from "../run/embedded-collector.js";
import { describeStoreOpeningProgress } from "../../../store/clickhouse/store-opening-progress.js";
import { reportInvalidSettings, settingsForCommand, type SettingsRequest } from "./command-settings.js";
import { describeFailure } from "./describe-failure.js";
import { storeWritesReadiness, watchStoreWrites } from "../observe/store-write-state.js";
import { ExitCode } from "./exit-codes.js";
import { openReceiverWarning } from "./open-receiver-warning.js";
import { describeAccess, hasTokens } from "../../../ui/access/ui-access.js";
import { DEFAULT_UI_HOST, DEFAULT_UI_PORT, startUiServer, type UiServer } from "../../../ui/ui-server.js";
import { collectorListeners, listenerClashes } from "../config/listener-clashes.js";
import { readUiSettings } from "./ui-settings.js";
import { debugRequested } from "./debug-variable.js";

type Output = { log: (line: string) => void; error: (line: string) => void };

export interface ServeOptions {
  dataset: string[];
  dataDir?: string;
  port?: number;
  /** A port, or "off"; checked by the settings schema. */
  grpcPort?: string;
  host?: string;
  metricsHost?: string;
  metricsPort?: number;
  /** The web UI and read API (ui/): address and port; 0 picks a free port. */
  uiHost?: string;
  uiPort?: number;
}

const mebibyte = 1024 * 1024;

export async function serveCommand(options: ServeOptions, request: SettingsRequest, output: Output, stopSignal?: Promise<void>): Promise<number> {
  const datasets = [];
  for (const file of options.dataset) {
    const loaded = await loadDatasetFile(file);
    if (!loaded.ok) {
      for (const line of describeLoadFailure(loaded.error, "the dataset is invalid")) output.error(line);
      return ExitCode.undecided;
    }
    datasets.push(loaded.value);
  }
  const resolved = await settingsForCommand("serve", request, {
    flags: {
      "clickhouse.dataPath": { value: options.dataDir, flag: "--data-dir" },
      "receiver.port": { value: options.port, flag: "--port" },
      "receiver.grpcPort": { value: options.grpcPort, flag: "--grpc-port" },
      "receiver.host": { value: options.host, flag: "--host" },
      "observe.host": { value: options.metricsHost, flag: "--metrics-host" },
      "observe.port": { value: options.metricsPort, flag: "--metrics-port" },
    },
  });
  if (!resolved.ok) {
    reportInvalidSettings("serve", resolved.error, output);
    return ExitCode.undecided;
  }
  const uiHost = options.uiHost ?? DEFAULT_UI_HOST;
  const uiPort = options.uiPort ?? DEFAULT_UI_PORT;
  const clashes = listenerClashes("ragscope serve", [
    ...collectorListeners(resolved.value.settings, resolved.value.origins, { receiver: true }),
    { name: "the web UI", host: uiHost, port: uiPort, portOrigin: options.uiPort === undefined ? "the default; --ui-port sets it" : "flag --ui-port" },
  ]);
  if (clashes.length > 0) {
    reportInvalidSettings("serve", clashes, output);
    return ExitCode.undecided;
  }
  const exposure = openReceiverWarning("serve", resolved.value.settings.receiver);
  if (exposure !== null) output.error(exposure);
  const uiSettings = readUiSettings(request.environment ?? {});
  if (!uiSettings.ok) {
    output.error(`ragscope serve: ${uiSettings.error}`);
    return ExitCode.undecided;
  }
  const { access: uiAccess, behindTls } = uiSettings.value;
  const config = collectorSettings(resolved.value.settings);
  const online = onlineStageFactory(onlineSettings(resolved.value.settings), judgeEndpointSettings(resolved.value.settings), sinkRetryPolicy(config));
  const registry = new MetricsRegistry();
  registerProcessMetrics(registry, { maxHeapBytes: config.memory.maxHeapMb * mebibyte });
  // Listening before the store opens and until the process ends: /healthz answers while the store migrates (minutes
  // on a big store; a liveness probe that got no answer killed serve mid-migration, which then started over) and
  // while serve drains after SIGTERM; /readyz says the start's step and the drain meanwhile (service-phase.ts).
  let observe: ObserveServer;
  try {
    observe = await startObserveServer({ host: config.observe.host, port: config.observe.port, registry, readiness: { starting: "opening the store" } });
  } catch (error) {
    for (const line of describeFailure("serve", error, debugRequested(request.environment))) output.error(line);
    return ExitCode.undecided;
  }
  output.log(`ragscope serve: starting; /healthz answers on ${observe.url}, and /readyz names the start's step until serve is ready`);
  let collector: EmbeddedCollector;
  try {
    collector = await startEmbeddedCollector(config, { online: online.online, registry, onStoreProgress: (progress) => observe.starting(describeStoreOpeningProgress(progress)) });
  } catch (error) {
    await observe.close();
    throw error;
  }
  observe.starting("starting the web UI");
  let ui: UiServer;
  try {
    ui = await startUiServer({ host: uiHost, port: uiPort, store: collector.store, access: uiAccess, behindTls });
  } catch (error) {
    await observe.close();
    await collector.close();
    const inUse = (error as NodeJS.ErrnoException).code === "EADDRINUSE";
    // The receiver's port in use has its fix said (describe-failure.ts); the web UI's port had only the system's words.
    output.error(`ragscope serve: the web UI did not start: ${(error as Error).message}${inUse ? `; another process holds that port: stop it, or give serve another --ui-port (0 picks a free one)` : ""}`);
    return ExitCode.undecided;
  }
  observe.starting("loading the Eval Cases of --dataset");
  try {
    // The store refuses a case whose id and version it holds with other content (the gold data of earlier runs).
    for (const dataset of datasets) await collector.store.cases.put(dataset.cases);
  } catch (error) {
    await ui.close();
    await observe.close();
    await collector.close();
    for (const line of describeFailure("serve", error, debugRequested(request.environment))) output.error(line);
    return ExitCode.undecided;
  }
  observe.ready([{ name: "clickhouse", check: () => collector.store.ping() }, storeWritesReadiness(collector.worker)]);
  output.log(`ragscope serve: OTLP/HTTP on ${collector.receiverUrl}/v1/traces → ${collector.store.describe()} (events of spans as OpenTelemetry logs on /v1/logs)`);
  output.log(`ragscope serve: ${collector.receiverGrpcUrl === null ? "OTLP/gRPC off (--grpc-port off)" : `OTLP/gRPC on ${collector.receiverGrpcUrl}`}`);
  output.log(`ragscope serve: /metrics, /healthz and /readyz on ${observe.url}`);
  // With tokens every page needs a session first: say where a browser gets one (behind a TLS proxy, at the proxy's address).
  const signIn = hasTokens(uiAccess) ? `; browsers sign in at ${ui.url}/login${behindTls ? " (or the same path at your HTTPS proxy's address)" : ""}` : "";
  output.log(`ragscope serve: web UI and read API on ${ui.url} (${describeAccess(uiAccess)})${signIn}`);
  output.log(`ragscope serve: ${datasets.reduce((total, dataset) => total + dataset.cases.length, 0)} Eval Cases loaded; online evaluation: ${online.judgeDescription}`);
  const storeWrites = watchStoreWrites(collector.worker, (line) => output.error(line), "ragscope serve");
  await (stopSignal ?? signalled());
  output.log("ragscope serve: stopping; open traces are evaluated (flagged partial)");
  // Not ready from now on, so a load balancer sends elsewhere; alive (/healthz) until the last write, then closed last.
  observe.drain("serve stops: requests in flight are answered, open traces evaluated (flagged partial) and written");
  storeWrites.stop();
  await ui.close();
  let stopped: EmbeddedStopOutcome;
  try {
    stopped = await collector.close();
  } finally {
    await observe.close();
  }
  if (stopped.unwrittenTraces > 0) {
    const lost = stopped.unwrittenTraces - stopped.deadLettered;
    output.error(
      `ragscope serve: ${stopped.unwrittenTraces} acknowledged trace(s) could not be stored: the store refused their writes until the stop (${stopped.lastStoreError?.trim() ?? "no reason given"}); ` +
        `${stopped.deadLettered} kept as dead letters (ragscope dead-letters lists them, with their Case Result)${lost > 0 ? `, ${lost} lost` : ""}. Free the store's disk or fix what the error names before starting again.`,
    );
    // Acknowledged to their senders and never stored anywhere: the exit must not read as a clean stop.
    if (lost > 0) return ExitCode.undecided;
  }
  return ExitCode.ok;
}
