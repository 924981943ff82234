/**
 * The project's test entry point (`npm test`).
 *
 * Node 20's test runner has no global setup hook, so this script does it:
 * it finds every `*.test.ts` file under test/, and runs them with `node --test`
 * through tsx. Services the suites need (the Kafka broker) are started here
 * once per run and stopped afterwards, so a clean clone needs nothing by hand.
 */
import { spawn } from "node:child_process";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ensureKafkaForTests, kafkaBrokersVariable } from "./support/kafka-for-tests.js";

const testRoot = path.dirname(fileURLToPath(import.meta.url));

async function findTestFiles(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { withFileTypes: true });
  const files: string[] = [];
  for (const entry of entries) {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) files.push(...(await findTestFiles(full)));
    else if (entry.name.endsWith(".test.ts")) files.push(full);
  }
  return files.sort();
}

async function main(): Promise<number> {
  const filters = process.argv.slice(2);
  const all = await findTestFiles(testRoot);
  const selected = filters.length === 0 ? all : all.filter((file) => filters.some((filter) => file.includes(filter)));
  if (selected.length === 0) {
    console.error(`no test files match ${filters.join(" ")}`);
    return 1;
  }
  // Suites under integration/kafka talk to a real broker: start one (or use KAFKA_BROKERS).
  const needsKafka = selected.some((file) => file.includes(`${path.sep}kafka${path.sep}`));
  const kafka = needsKafka ? await ensureKafkaForTests() : null;
  try {
    // --test-force-exit: a test file whose tests all finished must not keep the run
    // waiting on a handle a library left open (a kafkajs socket, a timer);
    // --test-timeout: no single test may hang the run (CI has 90 minutes in all).
    const child = spawn(process.execPath, ["--import", "tsx", "--test", "--test-reporter=spec", "--test-force-exit", "--test-timeout=900000", ...selected], {
      stdio: "inherit",
      env: kafka ? { ...process.env, [kafkaBrokersVariable]: kafka.brokers } : process.env,
    });
    return await new Promise<number>((resolve) => child.on("exit", (code) => resolve(code ?? 1)));
  } finally {
    await kafka?.stop();
  }
}

process.exitCode = await main();
