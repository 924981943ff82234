/**
 * The TraceSource contract (test/support/trace-source-contract.ts) against
 * the in-process bus, the embedded transport. Not durable: the suite checks
 * that it says so and behaves so.
 */
import { InProcessBus } from "../../../collector/02-transport/in-process/in-process-bus.js";
import type { ProgressTracker } from "../../../collector/03-consume/progress-tracker.js";
import { traceSourceContract, type TransportUnderTest } from "../../support/trace-source-contract.js";

traceSourceContract("in-process bus", async () => {
  const maxQueuedMessages = 100;
  let progress: ProgressTracker | undefined;
  // The process: a crash ends it, and the restarted one has a new, empty bus.
  let bus = new InProcessBus({ maxQueuedMessages, progress: { committable: () => progress?.committable() ?? new Map() } });
  let opened = false;
  const transport: TransportUnderTest = {
    capabilities: bus.capabilities,
    get publisher() {
      return bus;
    },
    async openSource(tracker) {
      if (opened) bus = new InProcessBus({ maxQueuedMessages, progress: { committable: () => progress?.committable() ?? new Map() } });
      opened = true;
      progress = tracker;
      const source = bus;
      return { source, crash: async () => {}, close: async () => {} };
    },
    async fullPublisher() {
      const full = new InProcessBus({ maxQueuedMessages: 2 });
      const filled = await full.publish([
        { key: null, value: new Uint8Array([1]) },
        { key: null, value: new Uint8Array([2]) },
      ]);
      if (!filled.ok) throw new Error(filled.error.message);
      return full;
    },
    async close() {},
  };
  return transport;
});
