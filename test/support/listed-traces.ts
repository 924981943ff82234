/**
 * The trace list of a running `serve` as a reader gets it (GET /api/traces), asked again until it holds what the
 * test sent: the collector stores a request a moment after the receiver accepts it. Bounded: every 100 ms, failing
 * after 60 s with what was listed and serve's output.
 */
import assert from "node:assert/strict";
import type { TraceSummary } from "../../store/ports/trace-reader.js";
import type { ServeWithUi } from "./serve-with-ui.js";

export interface ListedTracesOptions {
  /** The reader's UI token; none for a serve without UI tokens (loopback). */
  token?: string;
  /** The page size asked for: at least as many rows as the test waits for. */
  limit?: number;
}

/** The list once `stored(traces)` holds for it. */
export async function listedOnceStored(serve: ServeWithUi, stored: (traces: TraceSummary[]) => boolean, options: ListedTracesOptions = {}): Promise<TraceSummary[]> {
  const headers: Record<string, string> = options.token === undefined ? {} : { authorization: `Bearer ${options.token}` };
  for (let attempt = 0; ; attempt += 1) {
    const answer = await fetch(`${serve.uiUrl}/api/traces?limit=${options.limit ?? 200}`, { headers });
    if (answer.status !== 200) assert.fail(`the trace list answered ${answer.status}: ${await answer.text()}`);
    const traces = ((await answer.json()) as { traces: TraceSummary[] }).traces;
    if (stored(traces)) return traces;
    if (attempt >= 600) assert.fail(`the requests were not stored within 60 s: ${JSON.stringify(traces)}\n${serve.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Whether every one of `traceIds` is listed. */
export const listsTraces =
  (traceIds: readonly string[]) =>
  (traces: readonly TraceSummary[]): boolean =>
    traceIds.every((traceId) => traces.some((trace) => trace.traceId === traceId));
