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
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type { PrepareRequest, PreparedMessages } from "./prepare-trace-messages.js";

export type DecodeOutcome = PreparedMessages | { kind: "failed"; message: string };

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

  constructor(private readonly size: number) {
    for (let index = 0; index < size; index += 1) this.threads.push(this.spawn());
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
    const thread: Thread = { worker: startDecodeThread(), task: null };
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
function startDecodeThread(): Worker {
  const compiled = new URL("./decode-thread.js", import.meta.url);
  if (existsSync(fileURLToPath(compiled))) return new Worker(compiled);
  const source = new URL("./decode-thread.ts", import.meta.url);
  const tsxApi = import.meta.resolve("tsx/esm/api");
  return new Worker(`import(${JSON.stringify(tsxApi)}).then((api) => api.tsImport(${JSON.stringify(source.href)}, ${JSON.stringify(import.meta.url)}))`, { eval: true });
}
