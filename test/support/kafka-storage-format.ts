/**
 * Formats a KRaft log directory before the first start (kafka.tools.StorageTool
 * format, what bin/kafka-storage.sh runs).
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { openSync, closeSync } from "node:fs";

/**
 * A cluster id as Kafka's Uuid.randomUuid makes one: 16 random bytes in
 * base64url (22 characters). Ids starting with "-" are rejected there, because
 * they read as command-line flags; generating it here saves one JVM start
 * (`StorageTool random-uuid`).
 */
export function generateKafkaClusterId(): string {
  for (;;) {
    const candidate = randomBytes(16).toString("base64url");
    if (!candidate.startsWith("-")) return candidate;
  }
}

export interface KafkaStorageFormatInput {
  readonly javaCommand: string;
  readonly classpath: string;
  readonly log4jConfigurationFile: string;
  readonly clusterId: string;
  readonly propertiesFile: string;
  /** StorageTool's output is appended here. */
  readonly logFile: string;
}

/** Resolves with the exit code; 0 means the directories named in log.dirs are formatted. */
export async function formatKafkaStorage(input: KafkaStorageFormatInput): Promise<number | null> {
  const output = openSync(input.logFile, "a");
  try {
    const child = spawn(
      input.javaCommand,
      [
        // bin/kafka-run-class.sh gives tools 256 MB; formatting needs far less.
        "-Xmx256m",
        "-XX:TieredStopAtLevel=1",
        `-Dlog4j2.configurationFile=${input.log4jConfigurationFile}`,
        "-cp",
        input.classpath,
        "kafka.tools.StorageTool",
        "format",
        "--cluster-id",
        input.clusterId,
        "--config",
        input.propertiesFile,
      ],
      { stdio: ["ignore", output, output] },
    );
    return await new Promise<number | null>((resolve, reject) => {
      child.once("error", reject);
      child.once("exit", (code) => resolve(code));
    });
  } finally {
    closeSync(output);
  }
}
