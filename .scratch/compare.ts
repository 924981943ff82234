// Scratch: the previous reader and this one in one process on a kept store, alternating; CPU ms and wall ms per call.
import { openClickHouseStore } from "../store/clickhouse/clickhouse-store.js";
import { ClickHouseTraceReader } from "../store/clickhouse/clickhouse-trace-reader.js";
import { PreviousTraceReader } from "./previous-trace-reader.js";
import os from "node:os";
import assert from "node:assert/strict";
const [dataDir, roundsText, only] = process.argv.slice(2);
const store = await openClickHouseStore({ url: null, username: "default", password: "", database: "ragscope", dataPath: `${dataDir}/chdb` }, { rollupRefreshMs: 86_400_000 });
const readers = { before: new PreviousTraceReader(store.connection), after: new ClickHouseTraceReader(store.connection) };
const first = await readers.after.listTraces({}, { after: null, limit: 50 });
let cursor = first.next;
for (let page = 0; page < 20 && cursor; page += 1) cursor = (await readers.after.listTraces({}, { after: cursor, limit: 50 })).next;
const cases: [string, (reader: ClickHouseTraceReader | PreviousTraceReader) => Promise<unknown>][] = [
  ["newest 50", (r) => r.listTraces({}, { after: null, limit: 50 })],
  ["page 21 by cursor", (r) => r.listTraces({}, { after: cursor, limit: 50 })],
  ["service+tenant+route", (r) => r.listTraces({ service: "bank", tenant: "tenant_5", route: "/chat" }, { after: null, limit: 50 })],
  ["free text", (r) => r.listTraces({ text: "lighthouses" }, { after: null, limit: 50 })],
  ["metric below, service", (r) => r.listTraces({ metric: "context_redundancy", below: 0.5, service: "bank" }, { after: null, limit: 50 })],
  ["verdict failed", (r) => r.listTraces({ verdict: "failed" }, { after: null, limit: 50 })],
  ["detail", (r) => r.readTrace(first.traces[7]!.caseResultId)],
];
const rounds = Number(roundsText ?? 5);
console.log(`load average ${os.loadavg().map((v) => v.toFixed(1)).join(" ")}`);
for (const [name, call] of cases) {
  if (only && !name.includes(only)) continue;
  const figures: Record<string, { cpu: number[]; wall: number[] }> = { before: { cpu: [], wall: [] }, after: { cpu: [], wall: [] } };
  let results: Record<string, string> = {};
  for (let round = 0; round < rounds; round += 1) {
    for (const which of round % 2 === 0 ? (["before", "after"] as const) : (["after", "before"] as const)) {
      if (process.env.ONLY_AFTER && which === "before") continue;
      const cpu = process.cpuUsage(); const t = performance.now();
      const result = await call(readers[which]);
      figures[which]!.wall.push(performance.now() - t); const used = process.cpuUsage(cpu); figures[which]!.cpu.push((used.user + used.system) / 1000);
      results[which] = JSON.stringify(result);
    }
  }
  const med = (values: number[]) => { const sorted = [...values].sort((a, b) => a - b); return sorted.length ? Math.round(sorted[Math.floor(sorted.length / 2)]!) : NaN; };
  const same = results.before === undefined ? "" : results.before === results.after ? "identical" : "DIFFERENT";
  console.log(`${name.padEnd(24)} CPU ${med(figures.before!.cpu)} → ${med(figures.after!.cpu)} ms, wall ${med(figures.before!.wall)} → ${med(figures.after!.wall)} ms  ${same}`);
}
console.log(`load average ${os.loadavg().map((v) => v.toFixed(1)).join(" ")}`);
await store.close();
