/**
 * The project's test entry point (`npm test`).
 *
 * Node 20's test runner has no global setup hook, so this script does it:
 * it finds every `*.test.ts` file under test/, and runs them with `node --test`
 * through tsx. Services the suites need (the Kafka broker) are started here
 * once per run and stopped afterwards, so a clean clone needs nothing by hand.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { mkdir, readdir, readFile, rm } from "node:fs/promises";
import { attackReportVariable, formatAttackTable, type AttackOutcome } from "./support/attack-report.js";
import { ensureKafkaForTests, kafkaBrokersVariable } from "./support/kafka-for-tests.js";

const testRoot = path.dirname(fileURLToPath(import.meta.url));

/**
 * The whole run at most: a guard against a file that keeps its process alive, not a speed target. The suite takes
 * ~30 minutes on two cores, and up to ~60 when the machine is slow: the development machine ran its benchmarks at
 * half their usual speed on 2026-12-06. CI has 90 minutes, set-up included.
 */
const RUN_LIMIT_MS = 80 * 60_000;

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
  // The security suite's attacks are summed up in one table after the run (support/attack-report.ts).
  const attackReport = path.join(testRoot, "..", "test-output", "attack-report.jsonl");
  await mkdir(path.dirname(attackReport), { recursive: true });
  await rm(attackReport, { force: true });
  try {
    // No --test-force-exit: with it, node's runner drops the verdicts of a file's last tests when it ends the file's
    // process (nodejs/node#64833): a CI run reported 1,346 of 1,353 tests, exit 0, a file's tail missing — a failure
    // there would have gone unseen. A file that keeps its process alive after its tests is caught by RUN_LIMIT_MS.
    // --test-timeout: no single test may hang the run (CI has 90 minutes in all).
    const child = spawn(process.execPath, ["--import", "tsx", "--test", "--test-reporter=spec", "--test-timeout=900000", ...selected], {
      stdio: ["inherit", "pipe", "inherit"],
      env: { ...process.env, [attackReportVariable]: attackReport, ...(kafka ? { [kafkaBrokersVariable]: kafka.brokers } : {}) },
    });
    // Passed through as it comes; the last lines are kept so the runner's closing summary can be repeated last.
    let tail = "";
    child.stdout.on("data", (part: Buffer) => {
      process.stdout.write(part);
      tail = (tail + part.toString()).slice(-8_192);
    });
    // A file whose process outlives its tests (an open socket or timer) would hold the run until CI's limit: stopped here, failing.
    const limit = setTimeout(() => {
      console.error(`\nthe test run took more than ${RUN_LIMIT_MS / 60_000} minutes: a test file may keep its process alive after its tests (an open socket, a timer); stopping it`);
      child.kill("SIGKILL");
    }, RUN_LIMIT_MS);
    const code = await new Promise<number>((resolve) => child.on("close", (exit) => resolve(exit ?? 1)));
    clearTimeout(limit);
    const attacks = await readFile(attackReport, "utf8").then(
      (text) => text.split("\n").filter((line) => line !== "").map((line) => JSON.parse(line) as AttackOutcome),
      () => [],
    );
    if (attacks.length > 0) {
      console.log(`\n${formatAttackTable(attacks)}\n`);
      const summary = tail.lastIndexOf("ℹ tests ");
      if (summary !== -1) process.stdout.write(tail.slice(summary));
    }
    return code;
  } finally {
    await kafka?.stop();
  }
}

process.exitCode = await main();
