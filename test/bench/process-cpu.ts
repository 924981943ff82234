/**
 * CPU a benchmark reads from /proc for a process it started (serve, receive,
 * the broker's JVM): all threads together, per thread name, or per thread
 * kind, so that the event loop, node's helper threads (which node names
 * "node", every one) and the engine's threads are told apart.
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

/**
 * How node lays out its threads, all of them named "node" on Linux (Node 20 names none of its own threads): read
 * from the arguments and environment node was started with, so that threadCpuSecondsByKind can tell them apart by
 * the order they were created in (thread ids grow with creation).
 */
export interface NodeThreadLayout {
  /** V8's platform worker threads (`--v8-pool-size`, 4 unless given): garbage collection's concurrent and parallel phases, the optimizing compiler. */
  v8PoolSize: number;
  /** libuv's threadpool (UV_THREADPOOL_SIZE, 4 unless given): chDB's calls (its N-API async work: every insert and query), fs, crypto, dns. */
  libuvPoolSize: number;
  /** worker_threads the program starts itself (serve's decode threads): the newest unnamed threads. */
  workerThreads: number;
}

/** The layout of a node started with `nodeArguments` (before the program) and `environment`, running `workerThreads` worker threads of its own. */
export function nodeThreadLayout(nodeArguments: readonly string[], environment: NodeJS.ProcessEnv, workerThreads: number): NodeThreadLayout {
  const poolArgument = [...nodeArguments, ...(environment.NODE_OPTIONS ?? "").split(/\s+/)].map((word) => /^--v8-pool-size=(\d+)$/.exec(word)).findLast((match) => match !== null);
  const v8PoolSize = poolArgument ? Number(poolArgument[1]) : 4;
  const libuvPoolSize = Math.min(1024, Math.max(1, Number(environment.UV_THREADPOOL_SIZE ?? 4) || 4));
  return { v8PoolSize, libuvPoolSize, workerThreads };
}

/** The kinds threadCpuSecondsByKind splits node's unnamed threads into. */
export const NODE_THREAD_KINDS = {
  platform: "node: V8 platform threads (GC marking and sweeping, optimizing compiler)",
  libuv: "node: libuv threadpool (chDB's inserts and queries)",
  workers: "node: worker threads (serve's decode threads)",
  idle: "node: delayed-task scheduler and signal thread",
  other: "node: other unnamed threads (the engine's allocator, tsx's loader)",
} as const;

/**
 * CPU seconds per thread kind: the event loop; node's unnamed threads split by creation order as node 20 makes
 * them — V8's delayed-task scheduler, then its `v8PoolSize` platform workers (both at platform start, before any
 * JavaScript), node's signal thread, then libuv's `libuvPoolSize` pool threads (at the first queued work: an ES
 * module program's loader reads its files through the pool, so before the program runs), then any later ones, of
 * which the newest `workerThreads` are the program's worker threads (serve's decode threads, started after its
 * store); every named thread as "engine: NAME" (in our processes only the engine names threads: ThreadPool,
 * MergeMutate, …). Checked against `perf record -g` of serve, thread by thread (PlatformWorkerThread, libuv's
 * worker running InsertRawWorker::Execute, Worker::StartThread). What would break the order: a CommonJS program
 * that queues no work before starting worker threads (ours are ES modules), or thread ids wrapping around
 * (pid_max) while the process starts.
 */
export async function threadCpuSecondsByKind(pid: number, layout: NodeThreadLayout): Promise<Map<string, number>> {
  const threads: { tid: number; name: string; seconds: number }[] = [];
  for (const tid of await readdir(`/proc/${pid}/task`).catch(() => [] as string[])) {
    const stat = await readFile(`/proc/${pid}/task/${tid}/stat`, "utf8").catch(() => "");
    if (stat === "") continue;
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    threads.push({ tid: Number(tid), name: stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")).replace(/[\d-]+$/, ""), seconds: (Number(fields[11]) + Number(fields[12])) / 100 });
  }
  threads.sort((left, right) => left.tid - right.tid);
  const unnamed = threads.filter((thread) => thread.tid !== pid && thread.name === "node");
  const kindOf = new Map<number, string>();
  const assign = (from: number, count: number, kind: string) => unnamed.slice(from, from + count).forEach((thread) => kindOf.set(thread.tid, kind));
  assign(0, 1, NODE_THREAD_KINDS.idle);
  assign(1, layout.v8PoolSize, NODE_THREAD_KINDS.platform);
  assign(1 + layout.v8PoolSize, 1, NODE_THREAD_KINDS.idle);
  assign(2 + layout.v8PoolSize, layout.libuvPoolSize, NODE_THREAD_KINDS.libuv);
  const later = unnamed.slice(2 + layout.v8PoolSize + layout.libuvPoolSize);
  later.forEach((thread, index) => kindOf.set(thread.tid, index >= later.length - layout.workerThreads ? NODE_THREAD_KINDS.workers : NODE_THREAD_KINDS.other));
  const byKind = new Map<string, number>();
  for (const thread of threads) {
    const kind = thread.tid === pid ? EVENT_LOOP_THREAD : (kindOf.get(thread.tid) ?? `engine: ${thread.name}`);
    byKind.set(kind, (byKind.get(kind) ?? 0) + thread.seconds);
  }
  return byKind;
}
