/**
 * The entry point of a decode thread: takes a request body (its buffer
 * transferred, not copied), prepares the trace messages and sends them back
 * with their buffers transferred (decoded span records are cloned, their
 * stored texts' buffers transferred).
 */
import { parentPort } from "node:worker_threads";
import { prepareLogMessages } from "./prepare-log-messages.js";
import { prepareTraceMessages, type PrepareRequest } from "./prepare-trace-messages.js";

interface Task extends PrepareRequest {
  id: number;
}

const port = parentPort;
if (port === null) throw new Error("decode-thread.ts runs only as a worker thread");
port.on("message", (task: Task) => {
  let result;
  try {
    result = task.signal === "logs" ? prepareLogMessages(task) : prepareTraceMessages(task);
  } catch (error) {
    port.postMessage({ id: task.id, result: { kind: "failed", message: error instanceof Error ? error.message : String(error) } });
    return;
  }
  const transfer: ArrayBuffer[] = [];
  if (result.kind === "decoded") {
    // Each trace's stored span texts are views of one buffer of its own (stored-span-text.ts storeSpanTexts).
    const buffers = new Set<ArrayBuffer>();
    for (const trace of result.traces) for (const span of trace.spans) if (span.stored !== undefined) buffers.add(span.stored.utf8.buffer as ArrayBuffer);
    transfer.push(...buffers);
  }
  if (result.kind === "prepared") {
    for (const message of result.messages) {
      // Small messages may be views of Node's shared buffer pool, which cannot be transferred: they are copied.
      const { buffer } = message.value;
      if (buffer instanceof ArrayBuffer && message.value.byteOffset === 0 && message.value.byteLength === buffer.byteLength) transfer.push(buffer);
    }
  }
  port.postMessage({ id: task.id, result }, transfer);
});
