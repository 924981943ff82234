/**
 * CPU a benchmark reads from /proc for a process it started (serve, receive,
 * the broker's JVM): all threads together, or per thread name, so an event
 * loop can be told from decode threads and the engine's threads.
 */
import { readFile, readdir } from "node:fs/promises";

/** CPU seconds (user + system, all threads) a process has used, from /proc/PID/stat (clock ticks of 1/100 s). */
export async function processCpuSeconds(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8");
  // Fields after the command name (which may hold spaces) start at field 3; utime and stime are fields 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** The name threadCpuSeconds gives the process's main thread. */
export const EVENT_LOOP_THREAD = "event loop (main thread)";

/** CPU seconds per thread name (/proc/PID/task/TID/stat), so the engine's threads can be told from the event loop's. */
export async function threadCpuSeconds(pid: number): Promise<Map<string, number>> {
  const byName = new Map<string, number>();
  for (const tid of await readdir(`/proc/${pid}/task`).catch(() => [] as string[])) {
    const stat = await readFile(`/proc/${pid}/task/${tid}/stat`, "utf8").catch(() => "");
    if (stat === "") continue;
    const name = tid === String(pid) ? EVENT_LOOP_THREAD : stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")).replace(/[\d-]+$/, "");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    byName.set(name, (byName.get(name) ?? 0) + (Number(fields[11]) + Number(fields[12])) / 100);
  }
  return byName;
}
