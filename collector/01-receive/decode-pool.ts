/**
 * A small pool of decode threads (node:worker_threads). Request bodies are
 * transferred to a thread and the per-trace messages transferred back, so the
 * main thread only moves buffers while a large request is decoded, checked,
 * split and re-encoded. Tasks wait in order when every thread is busy; how
 * much may wait is bounded by the receiver's in-flight byte budget, since a
 * body keeps its share of the budget until its answer is sent.
 *
 * A thread that dies (a bug, or out of memory) fails its task and is
 * replaced; the other tasks go on.
 *
 * Each thread's young generation is sized for a request's garbage
 * (decodeThreadYoungGenerationMb): a 2 MB body decodes into tens of MB of
 * objects that live until its messages are posted, more than V8's default
 * 48 MiB young generation holds, so they were copied by scavenges and
 * promoted, and the old generation collected again and again.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker, type ResourceLimits } from "node:worker_threads";
import type { PreparedLogEvents } from "./prepare-log-messages.js";
import type { PrepareRequest, PreparedMessages } from "./prepare-trace-messages.js";

export type DecodeOutcome = PreparedMessages | PreparedLogEvents | { kind: "failed"; message: string };

interface Task {
  id: number;
  request: PrepareRequest;
  resolve: (outcome: DecodeOutcome) => void;
}

interface Thread {
  worker: Worker;
  task: Task | null;
}

export class DecodePool {
  private readonly threads: Thread[] = [];
  private readonly waiting: Task[] = [];
  private nextId = 0;
  private closed = false;

  /** `youngGenerationMb`: each thread's young generation (Worker resourceLimits); V8's default when not given. */
  constructor(
    private readonly size: number,
    private readonly youngGenerationMb?: number,
  ) {
    for (let index = 0; index < size; index += 1) this.threads.push(this.spawn());
  }

  /** Each running thread's resource limits as V8 applied them (Worker.resourceLimits). */
  threadLimits(): ResourceLimits[] {
    return this.threads.map((thread) => thread.worker.resourceLimits ?? {});
  }

  /** Prepares the messages of one request; the body's buffer is transferred and unusable afterwards. */
  run(request: PrepareRequest): Promise<DecodeOutcome> {
    if (this.closed) return Promise.resolve({ kind: "failed", message: "the receiver is shutting down" });
    return new Promise((resolve) => {
      this.waiting.push({ id: (this.nextId += 1), request, resolve });
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const task of this.waiting.splice(0)) task.resolve({ kind: "failed", message: "the receiver is shutting down" });
    await Promise.all(this.threads.map((thread) => thread.worker.terminate()));
  }

  private dispatch(): void {
    for (const thread of this.threads) {
      if (thread.task !== null) continue;
      const task = this.waiting.shift();
      if (task === undefined) return;
      thread.task = task;
      const { body } = task.request;
      // Only a body that owns its whole buffer can be transferred; a view into a larger one is copied.
      const transfer = body.buffer instanceof ArrayBuffer && body.byteOffset === 0 && body.byteLength === body.buffer.byteLength ? [body.buffer] : [];
      thread.worker.postMessage({ id: task.id, ...task.request }, transfer);
    }
  }

  private spawn(): Thread {
    const thread: Thread = { worker: startDecodeThread(this.youngGenerationMb), task: null };
    thread.worker.unref();
    thread.worker.on("message", (message: { id: number; result: DecodeOutcome }) => {
      const task = thread.task;
      thread.task = null;
      if (task !== null && task.id === message.id) task.resolve(message.result);
      this.dispatch();
    });
    thread.worker.on("error", (error) => {
      thread.task?.resolve({ kind: "failed", message: `decode thread failed: ${error.message}` });
      thread.task = null;
    });
    thread.worker.on("exit", () => {
      thread.task?.resolve({ kind: "failed", message: "decode thread exited" });
      thread.task = null;
      if (this.closed) return;
      const index = this.threads.indexOf(thread);
      if (index >= 0) this.threads[index] = this.spawn();
      this.dispatch();
    });
    return thread;
  }
}

/**
 * The compiled thread (dist/) when it exists; under the TypeScript loader
 * (tests, `tsx`), the .ts source through tsx's API, since a worker's entry
 * does not go through the loader the main thread registered.
 */
function startDecodeThread(youngGenerationMb: number | undefined): Worker {
  const options = youngGenerationMb === undefined ? {} : { resourceLimits: { maxYoungGenerationSizeMb: youngGenerationMb } };
  const compiled = new URL("./decode-thread.js", import.meta.url);
  if (existsSync(fileURLToPath(compiled))) return new Worker(compiled, options);
  const source = new URL("./decode-thread.ts", import.meta.url);
  const tsxApi = import.meta.resolve("tsx/esm/api");
  return new Worker(`import(${JSON.stringify(tsxApi)}).then((api) => api.tsImport(${JSON.stringify(source.href)}, ${JSON.stringify(import.meta.url)}))`, { eval: true, ...options });
}

/** V8's young generation for a worker thread when none is asked for (node 20 on 64-bit). */
const V8_DEFAULT_YOUNG_GENERATION_MB = 48;
/** What a decode thread gets when the heap bound allows it. */
const LARGEST_YOUNG_GENERATION_MB = 96;

/**
 * A decode thread's young generation for a heap bound (RAGSCOPE_MAX_HEAP_MB):
 * an eighth of it, between V8's default and 96 MiB. Measured on serve with
 * 2,000 eight-span traces (embedded-serve.bench.ts notes): 96–192 MiB cut the
 * decode threads' CPU by ~15 % and serve's by ~7 %; the young generation is
 * memory each thread may hold (both semi-spaces in use, ~2/3 of it), so a
 * small heap bound keeps V8's default.
 */
export function decodeThreadYoungGenerationMb(maxHeapMb: number): number {
  return Math.min(LARGEST_YOUNG_GENERATION_MB, Math.max(V8_DEFAULT_YOUNG_GENERATION_MB, Math.floor(maxHeapMb / 8)));
}
