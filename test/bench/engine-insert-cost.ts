/**
 * The fixed cost of one insert into the embedded engine on a folder's
 * filesystem: a one-row insert into a plain MergeTree table, median of 20.
 * A part is a folder of ~10–20 files (one per column group, marks, checksums,
 * each skip index, the partition's min/max), so an insert's fixed cost is
 * mostly creating files, and that depends on the filesystem more than on the
 * engine: benchmarks print it for the folder their stores are in and for
 * memory (/dev/shm), so that a figure from one machine reads against
 * another's.
 *
 * Measured in a subprocess of its own: the engine binds one data folder per
 * process, and the benchmark's own store has it. Run directly:
 * `node --import tsx test/bench/engine-insert-cost.ts FOLDER` prints the
 * figures as JSON.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { median, type BenchmarkFigure } from "./benchmark.js";

const INSERTS = 20;

interface InsertCost {
  /** Median wall-clock milliseconds of one insert. */
  wallMs: number;
  /** Median CPU milliseconds of this process (every thread) for one insert. */
  cpuMs: number;
}

async function measure(folder: string): Promise<InsertCost> {
  const { openClickHouse } = await import("../../store/clickhouse/clickhouse-connection.js");
  const dataPath = await mkdtemp(path.join(folder, "ragscope-insert-cost-"));
  const connection = await openClickHouse({ url: null, username: "default", password: "", database: "insert_cost", dataPath });
  try {
    await connection.client.command({ query: "CREATE TABLE insert_cost.rows (text String) ENGINE = MergeTree ORDER BY text" });
    const walls: number[] = [];
    const cpus: number[] = [];
    for (let index = 0; index < INSERTS; index += 1) {
      const started = performance.now();
      const cpu = process.cpuUsage();
      await connection.insertTabSeparated({ database: "insert_cost", table: "rows", columns: ["text"], body: Buffer.from(`row ${index}\n`), settings: {} });
      const used = process.cpuUsage(cpu);
      walls.push(performance.now() - started);
      cpus.push((used.user + used.system) / 1000);
    }
    return { wallMs: median(walls), cpuMs: median(cpus) };
  } finally {
    await connection.close();
    await rm(dataPath, { recursive: true, force: true });
  }
}

/** The figures for os.tmpdir() (where the benchmarks' stores are) and, where it exists, /dev/shm (memory). */
export async function engineInsertCostFigures(): Promise<BenchmarkFigure[]> {
  const figures: BenchmarkFigure[] = [];
  for (const [label, folder] of [["the stores' folder (" + os.tmpdir() + ")", os.tmpdir()], ["memory (/dev/shm, for comparison)", "/dev/shm"]] as const) {
    if (!existsSync(folder)) continue;
    const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", fileURLToPath(import.meta.url), folder], { timeout: 120_000 });
    const cost = JSON.parse(stdout) as InsertCost;
    figures.push({ name: `engine insert fixed cost, one row, on ${label}`, value: `${cost.wallMs.toFixed(1)} ms wall, ${cost.cpuMs.toFixed(1)} ms CPU` });
  }
  return figures;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const folder = process.argv[2];
  if (folder === undefined) throw new Error("usage: engine-insert-cost.ts FOLDER");
  process.stdout.write(`${JSON.stringify(await measure(folder))}\n`);
}
