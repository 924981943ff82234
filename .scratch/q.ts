// Scratch: run SQL files against a kept bench store, with timing and process CPU.
import { openClickHouseStore } from "../store/clickhouse/clickhouse-store.js";
import { readFileSync } from "node:fs";
const [dataDir, sqlFile, repeatsText] = process.argv.slice(2);
const store = await openClickHouseStore({ url: null, username: "default", password: "", database: "ragscope", dataPath: `${dataDir}/chdb` }, { rollupRefreshMs: 86_400_000 });
const statements = readFileSync(sqlFile!, "utf8").split(/;\s*\n/).map((s) => s.trim()).filter((s) => s && !s.startsWith("--"));
for (const sql of statements) {
  const times: number[] = []; const cpus: number[] = []; let text = "";
  for (let i = 0; i < Number(repeatsText ?? 3); i += 1) {
    const cpu = process.cpuUsage(); const t = performance.now();
    const r = await store.connection.client.query({ query: sql.replaceAll("{{database}}", "ragscope"), format: "TabSeparated" });
    text = await r.text();
    times.push(performance.now() - t); const c = process.cpuUsage(cpu); cpus.push((c.user + c.system) / 1000);
  }
  times.sort((a, b) => a - b); cpus.sort((a, b) => a - b);
  console.log(`--- ${sql.slice(0, 160).replace(/\s+/g, " ")}\n    wall median ${times[Math.floor(times.length / 2)]!.toFixed(1)} ms, cpu median ${cpus[Math.floor(cpus.length / 2)]!.toFixed(1)} ms`);
  console.log(text.split("\n").slice(0, 40).map((l) => "    " + l).join("\n"));
}
await store.close();
