/**
 * A real Apache Kafka broker for integration tests: one JVM running KRaft in
 * combined mode (broker and controller), started from the jars that
 * test/kafka-broker/fetch-jars.sh resolves from Maven Central.
 *
 * Each broker gets free ports on 127.0.0.1 and a fresh temporary run directory
 * holding server.properties, the data (log.dirs) and broker.log (the JVM's
 * console output). Startup failures throw with the tail of that log: a test
 * run without its broker cannot do anything useful, so this is not a Result.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { classDataSharingArguments, publishClassDataArchive } from "./kafka-class-data-archive.js";
import { createSilentKafkaClient } from "./kafka-client.js";
import { reserveFreePorts } from "./kafka-free-ports.js";
import { ensureKafkaJars, kafkaLibsDirectory, kafkaLog4jConfigurationFile } from "./kafka-jars.js";
import { reapOnParentExit } from "./kafka-process-reaper.js";
import { renderKafkaServerProperties, type KafkaPropertyValue } from "./kafka-server-properties.js";
import { formatKafkaStorage, generateKafkaClusterId } from "./kafka-storage-format.js";

export interface KafkaBrokerOptions {
  /** Folder of jars; defaults to kafkaLibsDirectory() (<repo>/.kafka/libs). */
  readonly libsDirectory?: string;
  /** Run fetch-jars.sh first (a no-op when the jars are current). Default true. */
  readonly fetchJars?: boolean;
  /** Defaults to $JAVA_HOME/bin/java, else `java` on PATH. Kafka 4 needs Java 17+. */
  readonly javaCommand?: string;
  /** JVM -Xmx; default "512m" (bin/kafka-server-start.sh uses 1G). */
  readonly maxHeap?: string;
  /** Upper bound for each start, from spawning the JVM to a usable group coordinator. Default 60 s. */
  readonly startupTimeoutMs?: number;
  /** Reuse a class-data archive across starts (see kafka-class-data-archive.ts). Default true. */
  readonly classDataSharing?: boolean;
  /** server.properties entries that replace or extend the test defaults. */
  readonly properties?: Readonly<Record<string, KafkaPropertyValue>>;
  /**
   * Create __consumer_offsets before the start resolves (a group coordinator lookup), so the first consumer
   * finds its coordinator at once. Default true; false leaves the broker as an operator's fresh one is — the
   * first group waits for its coordinator — and waits for topic metadata only.
   */
  readonly prepareGroupCoordinator?: boolean;
}

export interface KafkaBrokerStopOptions {
  /** SIGTERM (default) runs Kafka's controlled shutdown; SIGKILL simulates a crash. */
  readonly signal?: "SIGTERM" | "SIGKILL";
}

export interface KafkaBroker {
  /** Bootstrap addresses for kafkajs, e.g. ["127.0.0.1:40123"]. */
  readonly brokers: string[];
  readonly brokerPort: number;
  readonly controllerPort: number;
  readonly clusterId: string;
  readonly runDirectory: string;
  readonly logFile: string;
  /** Milliseconds the most recent start took, until the group coordinator answered. */
  readonly lastStartupMs: number;
  isRunning(): boolean;
  /** The JVM's process id while it runs (benchmarks read its CPU from /proc). */
  pid(): number | undefined;
  /** Stops the JVM but keeps ports, data and logs, so startProcess() can bring it back. */
  stopProcess(options?: KafkaBrokerStopOptions): Promise<void>;
  /** Starts the JVM again on the same ports and data directory. */
  startProcess(): Promise<void>;
  /** stopProcess() then startProcess(). */
  restart(options?: KafkaBrokerStopOptions): Promise<void>;
  /** Stops the JVM and deletes the run directory. Safe to call twice. */
  stop(): Promise<void>;
}

/** The line KafkaRaftServer logs once controller and broker are up (KafkaBroker.STARTED_MESSAGE). */
const startedMarker = "Kafka Server started";
const gracefulStopTimeoutMs = 10_000;
const logTailLines = 40;
const maximumAttempts = 3;

export class KafkaBrokerStartupError extends Error {
  constructor(
    message: string,
    readonly logFile: string,
    readonly logTail: string,
    /** The JVM could not bind a listener port: another process took it after it was picked. */
    readonly portTaken: boolean,
  ) {
    super(`${message}\n--- last lines of ${logFile} ---\n${logTail}`);
    this.name = "KafkaBrokerStartupError";
  }
}

function defaultJavaCommand(): string {
  const javaHome = process.env["JAVA_HOME"];
  return javaHome === undefined || javaHome === "" ? "java" : path.join(javaHome, "bin", "java");
}

async function readLogTail(logFile: string): Promise<string> {
  const text = await readFile(logFile, "utf8").catch(() => "");
  return text.split("\n").slice(-logTailLines).join("\n");
}

async function startupError(message: string, logFile: string): Promise<KafkaBrokerStartupError> {
  const tail = await readLogTail(logFile);
  // The JVM's log is the only channel a bind failure reaches us through; Kafka
  // exits with status 1 for every fatal startup error.
  const portTaken = /java\.net\.BindException|Address already in use/.test(tail);
  return new KafkaBrokerStartupError(message, logFile, tail, portTaken);
}

function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

async function waitForExit(child: ChildProcess, timeoutMs: number): Promise<boolean> {
  if (hasExited(child)) return true;
  return await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

interface BrokerLayout {
  readonly javaCommand: string;
  readonly libsDirectory: string;
  readonly classpath: string;
  readonly classDataSharing: boolean;
  readonly maxHeap: string;
  readonly startupTimeoutMs: number;
  readonly prepareGroupCoordinator: boolean;
  readonly brokers: string[];
  readonly runDirectory: string;
  readonly propertiesFile: string;
  readonly logFile: string;
}

function jvmArguments(layout: BrokerLayout): string[] {
  return [
    `-Xmx${layout.maxHeap}`,
    // GC flags as in bin/kafka-run-class.sh.
    "-XX:+UseG1GC",
    "-XX:MaxGCPauseMillis=20",
    "-XX:InitiatingHeapOccupancyPercent=35",
    "-XX:+ExplicitGCInvokesConcurrent",
    "-Djava.awt.headless=true",
    ...(layout.classDataSharing ? classDataSharingArguments(layout.libsDirectory, layout.runDirectory) : []),
    `-Dlog4j2.configurationFile=${kafkaLog4jConfigurationFile}`,
    `-Dkafka.logs.dir=${path.join(layout.runDirectory, "logs")}`,
    // One argv element, no shell: the JVM expands "dir/*" to every jar itself.
    "-cp",
    layout.classpath,
    "kafka.Kafka",
    layout.propertiesFile,
  ];
}

/** Resolves when broker.log shows the started marker, written after `fromOffset`. */
async function waitForStartedMarker(child: ChildProcess, layout: BrokerLayout, fromOffset: number, deadline: number): Promise<void> {
  for (;;) {
    const text = await readFile(layout.logFile, "utf8").catch(() => "");
    if (text.slice(fromOffset).includes(startedMarker)) return;
    if (hasExited(child)) {
      throw await startupError(`the Kafka broker JVM exited (${String(child.exitCode ?? child.signalCode)}) before it started`, layout.logFile);
    }
    if (Date.now() > deadline) throw await startupError(`no "${startedMarker}" within ${layout.startupTimeoutMs} ms`, layout.logFile);
    await delay(100);
  }
}

/**
 * "Kafka Server started" means the listeners are bound; this proves a client
 * can talk to the broker, and creates __consumer_offsets up front (a group
 * coordinator lookup does that). Without it the first consumer of every run
 * logs "The group coordinator is not available" errors while kafkajs retries.
 * Without `prepareGroupCoordinator`, only that a client can read topic metadata.
 */
async function waitForUsableBroker(child: ChildProcess, layout: BrokerLayout, deadline: number): Promise<void> {
  const admin = createSilentKafkaClient(layout.brokers).admin();
  let lastError: unknown;
  try {
    while (Date.now() < deadline) {
      if (hasExited(child)) throw await startupError("the Kafka broker JVM exited while clients were connecting", layout.logFile);
      try {
        await admin.connect();
        // Topic metadata needs no coordinator, and creates no topic.
        if (layout.prepareGroupCoordinator) await admin.describeGroups(["ragscope-broker-readiness-probe"]);
        else await admin.listTopics();
        return;
      } catch (error) {
        if (error instanceof KafkaBrokerStartupError) throw error;
        lastError = error;
        await delay(200);
      }
    }
    throw await startupError(`kafkajs could not ${layout.prepareGroupCoordinator ? "reach a group coordinator" : "read topic metadata"} in time: ${String(lastError)}`, layout.logFile);
  } finally {
    await admin.disconnect().catch(() => {});
  }
}

class BrokerProcess {
  private child: ChildProcess | undefined;
  private unregister: (() => void) | undefined;

  constructor(private readonly layout: BrokerLayout) {}

  isRunning(): boolean {
    return this.child !== undefined && !hasExited(this.child);
  }

  pid(): number | undefined {
    return this.isRunning() ? this.child?.pid : undefined;
  }

  /** Spawns the JVM and resolves once it serves clients; on failure the JVM is stopped. */
  async start(): Promise<void> {
    if (this.isRunning()) throw new Error("the Kafka broker is already running");
    const deadline = Date.now() + this.layout.startupTimeoutMs;
    const logOffset = (await readFile(this.layout.logFile, "utf8").catch(() => "")).length;
    // The JVM writes straight to the file, so a busy Node event loop never blocks its logging.
    const output = openSync(this.layout.logFile, "a");
    let child: ChildProcess;
    try {
      child = spawn(this.layout.javaCommand, jvmArguments(this.layout), { stdio: ["ignore", output, output], detached: false });
    } finally {
      closeSync(output);
    }
    const spawnFailure = new Promise<never>((_, reject) => {
      child.once("error", (error) => reject(new Error(`could not run ${this.layout.javaCommand} (Kafka needs Java 17+; set JAVA_HOME): ${error.message}`)));
    });
    this.child = child;
    this.unregister = reapOnParentExit(child, this.layout.runDirectory);
    try {
      await Promise.race([spawnFailure, this.waitUntilReady(child, logOffset, deadline)]);
    } catch (error) {
      await this.stop({ signal: "SIGKILL" });
      throw error;
    }
  }

  private async waitUntilReady(child: ChildProcess, logOffset: number, deadline: number): Promise<void> {
    await waitForStartedMarker(child, this.layout, logOffset, deadline);
    await waitForUsableBroker(child, this.layout, deadline);
  }

  async stop(options: KafkaBrokerStopOptions = {}): Promise<void> {
    const child = this.child;
    if (child !== undefined && !hasExited(child)) {
      const signal = options.signal ?? "SIGTERM";
      child.kill(signal);
      const exitedByItself = await waitForExit(child, gracefulStopTimeoutMs);
      if (!exitedByItself) {
        child.kill("SIGKILL");
        await waitForExit(child, gracefulStopTimeoutMs);
      }
      if (this.layout.classDataSharing && exitedByItself && signal === "SIGTERM") {
        await publishClassDataArchive(this.layout.libsDirectory, this.layout.runDirectory);
      }
    }
    this.unregister?.();
    this.unregister = undefined;
    this.child = undefined;
  }
}

async function createLayout(options: KafkaBrokerOptions, libsDirectory: string, brokerPort: number): Promise<BrokerLayout> {
  const runDirectory = await mkdtemp(path.join(os.tmpdir(), "ragscope-kafka-"));
  return {
    javaCommand: options.javaCommand ?? defaultJavaCommand(),
    libsDirectory,
    classpath: path.join(libsDirectory, "*"),
    classDataSharing: options.classDataSharing ?? true,
    maxHeap: options.maxHeap ?? "512m",
    startupTimeoutMs: options.startupTimeoutMs ?? 60_000,
    prepareGroupCoordinator: options.prepareGroupCoordinator ?? true,
    brokers: [`127.0.0.1:${brokerPort}`],
    runDirectory,
    propertiesFile: path.join(runDirectory, "server.properties"),
    logFile: path.join(runDirectory, "broker.log"),
  };
}

async function startOnce(options: KafkaBrokerOptions, libsDirectory: string): Promise<KafkaBroker> {
  const startedAt = performance.now();
  const [brokerPort, controllerPort] = await reserveFreePorts(2);
  if (brokerPort === undefined || controllerPort === undefined) throw new Error("reserveFreePorts returned too few ports");
  const layout = await createLayout(options, libsDirectory, brokerPort);
  const clusterId = generateKafkaClusterId();
  await writeFile(
    layout.propertiesFile,
    renderKafkaServerProperties({ brokerPort, controllerPort, dataDirectory: path.join(layout.runDirectory, "data"), overrides: options.properties ?? {} }),
  );
  const formatExit = await formatKafkaStorage({
    javaCommand: layout.javaCommand,
    classpath: layout.classpath,
    log4jConfigurationFile: kafkaLog4jConfigurationFile,
    clusterId,
    propertiesFile: layout.propertiesFile,
    logFile: layout.logFile,
  }).catch(async (error: unknown) => {
    await rm(layout.runDirectory, { recursive: true, force: true });
    throw new Error(`could not run ${layout.javaCommand} (Kafka needs Java 17+; set JAVA_HOME): ${String(error)}`);
  });
  if (formatExit !== 0) throw await startupError(`kafka.tools.StorageTool format exited with ${String(formatExit)}`, layout.logFile);

  const jvm = new BrokerProcess(layout);
  await jvm.start();
  let lastStartupMs = Math.round(performance.now() - startedAt);
  let stopping: Promise<void> | undefined;

  const broker: KafkaBroker = {
    brokers: layout.brokers,
    brokerPort,
    controllerPort,
    clusterId,
    runDirectory: layout.runDirectory,
    logFile: layout.logFile,
    get lastStartupMs() {
      return lastStartupMs;
    },
    isRunning: () => jvm.isRunning(),
    pid: () => jvm.pid(),
    stopProcess: async (stopOptions) => await jvm.stop(stopOptions),
    startProcess: async () => {
      const restartedAt = performance.now();
      await jvm.start();
      lastStartupMs = Math.round(performance.now() - restartedAt);
    },
    restart: async (stopOptions) => {
      await broker.stopProcess(stopOptions);
      await broker.startProcess();
    },
    stop: async () => {
      stopping ??= (async () => {
        await jvm.stop();
        await rm(layout.runDirectory, { recursive: true, force: true });
      })();
      await stopping;
    },
  };
  return broker;
}

/**
 * Starts a single-node Kafka broker and resolves once a kafkajs client can use a
 * consumer group on it. The run directory is kept when startup fails, and its
 * path is in the error, so the whole log can be read.
 */
export async function startKafkaBroker(options: KafkaBrokerOptions = {}): Promise<KafkaBroker> {
  const libsDirectory = options.libsDirectory ?? kafkaLibsDirectory();
  if (options.fetchJars ?? true) await ensureKafkaJars();
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await startOnce(options, libsDirectory);
    } catch (error) {
      // Ports are released between picking and binding; retry only that race.
      if (error instanceof KafkaBrokerStartupError && error.portTaken && attempt < maximumAttempts) {
        await rm(path.dirname(error.logFile), { recursive: true, force: true });
        continue;
      }
      throw error;
    }
  }
}
