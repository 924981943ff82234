/**
 * What every long-running collector command does around its roles, given the
 * settings parsed at the command line: serve /metrics, /healthz and /readyz
 * (from before the roles start until the process ends: service-phase.ts),
 * start the Kafka client and the roles, then run until SIGINT
 * or SIGTERM — or until a role fails, which ends the process with status 2 so
 * a supervisor restarts it (the group rebalances and replays what was not
 * durable).
 *
 * Stopping is bounded: the roles get `kafka.stopTimeoutMs` (30 s by default,
 * half of the 60 s terminationGracePeriodSeconds of deploy/k8s) to write what is ready,
 * commit what is durable and leave the group. Past it — Kafka or ClickHouse
 * unreachable — the process says so and ends at once, terminated by SIGTERM,
 * without committing: what was not committed is read again by the next
 * member. A second SIGINT or SIGTERM ends it the same way. A stop that
 * completed but could not commit exits 2.
 */
import v8 from "node:v8";
import type { LogEntry } from "kafkajs";
import { defaultMaxHeapMb } from "../config/collector-config.js";
import type { Settings } from "../config/settings-schema.js";
import { createKafkaClient } from "../../02-transport/kafka/kafka-client.js";
import { kafkaLogKey, kafkaLogLine, kafkaRepeatSummaryLine } from "../../02-transport/kafka/kafka-log-lines.js";
import { registerProcessMetrics } from "../observe/collector-metrics.js";
import { MetricsRegistry } from "../observe/metrics-registry.js";
import { RepeatedLogLimiter } from "../observe/repeated-log-limiter.js";
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
  /** Resolves when the process should stop; default: SIGINT or SIGTERM (and a second one ends the process at once). */
  stopSignal?: Promise<void>;
  /** Longest time the roles get to stop (default: the setting kafka.stopTimeoutMs); then the process ends without waiting for them. */
  stopTimeoutMs?: number;
  /** Ends the process once the roles stopped, when what libraries still run would hold it; default process.exit. */
  exit?: (code: number) => void;
  /** Ends the process now, while the roles still work (stop deadline, second signal); default terminateNow. */
  terminate?: () => void;
  /** Time for the repeat limit of kafkajs's log; default Date.now. */
  clock?: () => number;
}

/**
 * Ends the process at once by SIGTERM's default action, which runs no exit handlers: process.exit() runs the embedded
 * engine's (chDB) static destructors while its threads still work — a write of the stop in flight — and the process
 * died of SIGSEGV instead.
 */
export function terminateNow(): void {
  process.removeAllListeners("SIGTERM");
  process.kill(process.pid, "SIGTERM");
}

/** How long a process whose roles stopped may be held by what libraries still run (their timers) before it is ended. */
const lingerMs = 1_000;

const mebibyte = 1024 * 1024;

/** Entries held at most while a role starts: kafkajs logs a few lines per retry, ~10 retries before it gives up. */
const HELD_KAFKA_LOG_ENTRIES = 200;

/**
 * How long identical kafkajs entries are counted instead of printed after the first (repeated-log-limiter.ts):
 * with Kafka down, kafkajs logs each connection retry — two lines every second or so per client, for as long
 * as the outage lasts — which buried everything else on stderr.
 */
const KAFKA_LOG_REPEAT_WINDOW_MS = 60_000;
/** How often windows that ended are closed with their summary line when no entry of their kind comes to close them. */
const KAFKA_LOG_FLUSH_INTERVAL_MS = 5_000;

/**
 * kafkajs's log while a role starts: held, not printed. Before, a broker out of reach printed 8–11 s of JSON
 * retry lines before the one line saying what failed. Once the role runs the held lines are printed (a start
 * that needed retries keeps its history) and later ones as they come, one JSON line each on stderr, as
 * kafka-client.ts's default writer does; on a failed start they are dropped unless debugging. Printed entries
 * pass the repeat limit: the first of a kind, then one "N more like this in the last 60 s" line per window.
 */
class StartQuietKafkaLog {
  private held: LogEntry[] | null = [];
  private dropped = 0;
  private closed = false;
  private readonly limiter: RepeatedLogLimiter<LogEntry>;
  private readonly flushTimer: NodeJS.Timeout;

  constructor(clock: () => number) {
    this.limiter = new RepeatedLogLimiter<LogEntry>({
      windowMs: KAFKA_LOG_REPEAT_WINDOW_MS,
      clock,
      keyOf: kafkaLogKey,
      write: (entry) => process.stderr.write(`${kafkaLogLine(entry)}\n`),
      writeSummary: ({ first, suppressed, seconds }) => process.stderr.write(`${kafkaRepeatSummaryLine(first, suppressed, seconds)}\n`),
    });
    this.flushTimer = setInterval(() => this.limiter.flushEnded(), KAFKA_LOG_FLUSH_INTERVAL_MS);
    this.flushTimer.unref();
  }

  /** Entries not printed because one like them was printed shortly before (ragscope_kafka_log_entries_suppressed_total). */
  get suppressed(): number {
    return this.limiter.suppressedTotal;
  }

  write(entry: LogEntry): void {
    // After close no window would be summed up any more: what kafkajs logs while the process ends is printed in full.
    if (this.closed) return void process.stderr.write(`${kafkaLogLine(entry)}\n`);
    if (this.held === null) return this.limiter.accept(entry);
    if (this.held.length < HELD_KAFKA_LOG_ENTRIES) this.held.push(entry);
    else this.dropped += 1;
  }

  /** From now on entries are printed; `flush`: print the held ones first. */
  started(flush: boolean): void {
    const held = this.held ?? [];
    this.held = null;
    if (!flush) return;
    for (const entry of held) this.limiter.accept(entry);
    if (this.dropped > 0) process.stderr.write(`${JSON.stringify({ source: "ragscope", message: `${this.dropped} more kafkajs log entries of the start were left out` })}\n`);
  }

  /** The process ends: the counts of the windows still open are printed, so none is lost. */
  close(): void {
    this.closed = true;
    clearInterval(this.flushTimer);
    this.limiter.flushAll();
  }
}

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
  const kafkaLog = new StartQuietKafkaLog(options.clock ?? Date.now);
  registry.counter(
    "ragscope_kafka_log_entries_suppressed_total",
    "kafkajs log entries not printed because one of the same level and message was printed less than 60 s before; each window's count is printed when it ends",
    () => kafkaLog.suppressed,
  );
  const kafka = createKafkaClient(config.kafka, { onLog: (entry) => kafkaLog.write(entry) });
  // Listening before the roles start and until the process ends: /healthz answers while the store migrates (minutes
  // on a big store; a liveness probe that got no answer killed the process mid-migration, which then started over)
  // and while the roles drain after SIGTERM; /readyz says the start's step and the drain meanwhile (service-phase.ts).
  let observe: ObserveServer;
  try {
    observe = await startObserveServer({ host: config.observe.host, port: config.observe.port, registry, readiness: { starting: "starting the roles" } });
  } catch (error) {
    kafkaLog.close();
    for (const line of describeFailure(options.name, error, options.debug)) output.error(line);
    return ExitCode.undecided;
  }
  output.log(`ragscope ${options.name}: starting; /healthz answers on ${observe.url}, and /readyz names the start's step until the roles run`);
  let roles: RunningRoles;
  try {
    roles = await options.start(config, { kafka, registry, log: (line) => output.error(`ragscope ${options.name}: ${line}`), startUp: (step) => observe.starting(step) });
  } catch (error) {
    // The failure is one line; kafkajs's retries that led to it are shown only with RAGSCOPE_DEBUG.
    kafkaLog.started(options.debug);
    kafkaLog.close();
    await observe.close();
    for (const line of describeFailure(options.name, error, options.debug)) output.error(line);
    return ExitCode.undecided;
  }
  kafkaLog.started(true);
  observe.ready(roles.readiness);
  for (const line of roles.describe) output.log(line);
  output.log(`metrics, /healthz and /readyz on ${observe.url}`);
  const stopSignal = options.stopSignal ?? signalled();
  const failure = await Promise.race([stopSignal.then(() => null), roles.failed ?? new Promise<never>(() => {})]);
  if (failure !== null) output.error(`ragscope ${options.name}: ${failure}`);
  const stopTimeoutMs = options.stopTimeoutMs ?? config.kafka.stopTimeoutMs;
  // On stderr with the role's other "ragscope <role>:" lines, so one stream tells the stop from its start to its end.
  output.error(`ragscope ${options.name}: stopping (at most ${stopTimeoutMs / 1000} s)`);
  // Not ready from now on, so a load balancer sends elsewhere; alive (/healthz) until the roles stopped or the deadline.
  observe.drain(`${options.name} stops: the roles write what is ready and commit (at most ${stopTimeoutMs / 1000} s)`);
  const interrupted = options.stopSignal === undefined ? signalled().then(() => "a signal came while stopping" as const) : new Promise<never>(() => {});
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`the roles did not stop within ${stopTimeoutMs / 1000} s`), stopTimeoutMs);
  });
  const stopping = roles.close().then(
    () => null,
    (error: unknown) => (error instanceof Error ? error.message : String(error)),
  );
  const outcome = await Promise.race([stopping.then((problem) => ({ done: true as const, problem })), deadline.then((problem) => ({ done: false as const, problem })), interrupted.then((problem) => ({ done: false as const, problem }))]);
  clearTimeout(timer);
  await observe.close();
  kafkaLog.close();
  // Handles the roles still hold (a kafkajs client retrying, a socket) would keep the process alive.
  const exit = options.exit ?? ((code: number) => process.exit(code));
  if (!outcome.done) {
    output.error(`ragscope ${options.name}: ${outcome.problem} (Kafka or ClickHouse unreachable?): exiting without committing; what was read and not committed is evaluated again by the next member`);
    (options.terminate ?? terminateNow)();
    return ExitCode.undecided;
  }
  if (outcome.problem !== null) output.error(`ragscope ${options.name}: stopping: ${outcome.problem}`);
  // A role that failed, or a stop that could not commit, did not do its job: non-zero, so a supervisor restarts the process.
  const code = failure === null && outcome.problem === null ? ExitCode.ok : ExitCode.undecided;
  // Said when the stop is over: a log whose last line is "stopping" reads as a stop still under way, or hung.
  output.error(`ragscope ${options.name}: stopped${code === ExitCode.ok ? "" : ` (exit code ${code}: ${failure !== null ? "a role had failed" : "the stop had a problem, above"})`}`);
  // Stopped: the process ends once nothing holds it. What a client library still runs (kafkajs retrying, for 10-20 s,
  // a consumer restart that was under way when Kafka went down) has nothing left to do: it may hold the process a
  // second, not longer, and not past another signal.
  setTimeout(() => exit(code), lingerMs).unref();
  void interrupted.then(() => exit(code));
  return code;
}
