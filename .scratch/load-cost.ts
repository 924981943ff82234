// Scratch: load CPU per trace through the sink, without and with migration 0015's views, alternating, in one process.
import { cp, mkdtemp, readdir } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { ClickHouseSink } from "../store/clickhouse/clickhouse-sink.js";
import { migrationsFolder, runMigrations } from "../store/clickhouse/run-migrations.js";
import { temporaryStore, type TemporaryStore } from "../test/support/temporary-store.js";
import { templates, variant } from "../test/bench/ui.bench.js";
const TRACES = 10_000, BATCH = 5_000;
const without = await mkdtemp(path.join(os.tmpdir(), "migrations-0013-"));
for (const file of await readdir(migrationsFolder)) if (/^\d{4}_/.test(file) && Number(file.slice(0, 4)) <= 13) await cp(path.join(migrationsFolder, file), path.join(without, file));
const base = templates();
let first: TemporaryStore | undefined;
const figures: Record<string, number[]> = { "without 0015": [], "with 0015": [] };
for (const round of [0, 1, 2, 3]) {
  const name = round % 2 === 0 ? "without 0015" : "with 0015";
  const store: TemporaryStore = await temporaryStore(first === undefined ? { migrate: false } : { migrate: false, beside: first });
  first ??= store;
  await runMigrations(store.connection, name === "with 0015" ? migrationsFolder : without);
  const sink = new ClickHouseSink(store.connection);
  const cpu = process.cpuUsage();
  for (let start = 0; start < TRACES; start += BATCH) {
    const batch = []; for (let index = start; index < start + BATCH; index += 1) batch.push(variant(base[index % base.length]!, index));
    const written = await sink.write(batch); if (!written.ok) throw new Error(written.error.message);
  }
  const used = process.cpuUsage(cpu);
  figures[name]!.push(Math.round((used.user + used.system) / TRACES));
  console.log(`${name}: ${Math.round((used.user + used.system) / TRACES)} µs/trace, load average ${os.loadavg()[0]!.toFixed(1)}`);
}
process.exit(0);
