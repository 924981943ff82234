/**
 * Where the test broker's jars live, and how to get them there.
 *
 * The jars are Apache Kafka's own, resolved from Maven Central by
 * test/kafka-broker/fetch-jars.sh (which is idempotent and cheap once done),
 * so a clean clone needs nothing by hand beyond Java 17+ and Maven.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const repositoryRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

/** test/kafka-broker: the POM, the fetch script and the broker's log4j2 configuration. */
export const kafkaBrokerFilesDirectory = path.join(repositoryRoot, "test", "kafka-broker");

export const kafkaLog4jConfigurationFile = path.join(kafkaBrokerFilesDirectory, "log4j2.properties");

const fetchScript = path.join(kafkaBrokerFilesDirectory, "fetch-jars.sh");

/** <repo>/.kafka/libs, or $KAFKA_TEST_HOME/libs (the same override fetch-jars.sh honours). */
export function kafkaLibsDirectory(environment: NodeJS.ProcessEnv = process.env): string {
  const home = environment["KAFKA_TEST_HOME"] ?? path.join(repositoryRoot, ".kafka");
  return path.join(home, "libs");
}

export interface KafkaJars {
  readonly libsDirectory: string;
  readonly durationMs: number;
}

/**
 * Runs fetch-jars.sh, which returns at once (and silently) when the pinned jars
 * are present. Its output goes to stderr so it never mixes with a test reporter on stdout.
 * A failed fetch throws: without the jars there is no broker and no integration run.
 */
export async function ensureKafkaJars(environment: NodeJS.ProcessEnv = process.env): Promise<KafkaJars> {
  const startedAt = performance.now();
  const child = spawn("bash", [fetchScript, "--quiet"], { stdio: ["ignore", process.stderr, process.stderr], env: environment });
  const exitCode = await new Promise<number | null>((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => resolve(code));
  });
  if (exitCode !== 0) {
    throw new Error(`${fetchScript} exited with ${String(exitCode)}; see its output above (it needs java, mvn and Maven Central)`);
  }
  return { libsDirectory: kafkaLibsDirectory(environment), durationMs: Math.round(performance.now() - startedAt) };
}
