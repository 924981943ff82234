/**
 * What every long-running collector command does around its roles, given the
 * settings parsed at the command line: start the Kafka client
 * and the roles, serve /metrics, /healthz and /readyz, then run until SIGINT
 * or SIGTERM — or until a role fails, which ends the process with status 1 so
 * a supervisor restarts it (the group rebalances and replays what was not
 * durable).
 */
import v8 from "node:v8";
import { defaultMaxHeapMb } from "../config/collector-config.js";
import type { Settings } from "../config/settings-schema.js";
import { createKafkaClient } from "../../02-transport/kafka/kafka-client.js";
import { registerProcessMetrics } from "../observe/collector-metrics.js";
import { MetricsRegistry } from "../observe/metrics-registry.js";
import { startObserveServer, type ObserveServer, type ReadinessCheck } from "../observe/observe-server.js";
import { describeFailure } from "../cli/describe-failure.js";
import { ExitCode } from "../cli/exit-codes.js";
import type { RoleContext } from "./kafka-receiver-role.js";

export interface Output {
  log: (line: string) => void;
  error: (line: string) => void;
}

export interface RunningRoles {
  readiness: ReadinessCheck[];
  /** Lines printed once everything runs. */
  describe: string[];
  failed?: Promise<string>;
  close(): Promise<void>;
}

export interface CollectorProcessOptions {
  name: string;
  /** Parsed once at the command line; the roles take their slices of it. */
  settings: Readonly<Settings>;
  /** Print stack traces of unexpected errors (RAGSCOPE_DEBUG). */
  debug: boolean;
  start: (settings: Readonly<Settings>, context: RoleContext) => Promise<RunningRoles>;
  output: Output;
  /** Resolves when the process should stop; default: SIGINT or SIGTERM. */
  stopSignal?: Promise<void>;
}

const mebibyte = 1024 * 1024;

/** Resolves on the first SIGINT or SIGTERM (then stops listening). */
export function signalled(): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      resolve();
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
}

export async function runCollectorProcess(options: CollectorProcessOptions): Promise<number> {
  const { output } = options;
  const config = options.settings;
  // The evaluator keeps its live data under the bound (it pauses reading); V8 collects garbage
  // lazily unless its own limit says otherwise, so the heap in use can pass a bound set well below
  // V8's limit with garbage. The default bound is sized from V8's limit and needs no warning.
  if (config.memory.maxHeapMb < defaultMaxHeapMb()) {
    const heapLimitMb = Math.round(v8.getHeapStatistics().heap_size_limit / mebibyte);
    output.error(
      `ragscope ${options.name}: the V8 heap limit is ${heapLimitMb} MiB, well above the memory bound of ${config.memory.maxHeapMb} MiB (RAGSCOPE_MAX_HEAP_MB); ` +
        `start node with --max-old-space-size=${Math.ceil(config.memory.maxHeapMb / 0.8)} (for example in NODE_OPTIONS) so garbage is collected within the bound`,
    );
  }
  const registry = new MetricsRegistry();
  registerProcessMetrics(registry, { maxHeapBytes: config.memory.maxHeapMb * mebibyte });
  const kafka = createKafkaClient(config.kafka);
  let roles: RunningRoles;
  try {
    roles = await options.start(config, { kafka, registry, log: (line) => output.error(`ragscope ${options.name}: ${line}`) });
  } catch (error) {
    for (const line of describeFailure(options.name, error, options.debug)) output.error(line);
    return ExitCode.undecided;
  }
  let observe: ObserveServer;
  try {
    observe = await startObserveServer({ host: config.observe.host, port: config.observe.port, registry, readiness: roles.readiness });
  } catch (error) {
    await roles.close();
    for (const line of describeFailure(options.name, error, options.debug)) output.error(line);
    return ExitCode.undecided;
  }
  for (const line of roles.describe) output.log(line);
  output.log(`metrics, /healthz and /readyz on ${observe.url}`);
  const stopSignal = options.stopSignal ?? signalled();
  const failure = await Promise.race([stopSignal.then(() => null), roles.failed ?? new Promise<never>(() => {})]);
  if (failure !== null) output.error(`ragscope ${options.name}: ${failure}`);
  output.log(`ragscope ${options.name}: stopping`);
  await roles.close();
  await observe.close();
  // A role that failed could not do its job: non-zero, so a supervisor restarts the process.
  return failure === null ? ExitCode.ok : ExitCode.undecided;
}
