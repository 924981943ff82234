/**
 * A TracePublisher that keeps what it is given in memory: a real implementation
 * of the interface, with failures that a test can queue up, as a bus that is
 * down would answer.
 */
import { failure, success, type Result } from "../../../core/result.js";
import type { BusMessage, PublishFailure, TracePublisher } from "../../../collector/02-transport/trace-bus.js";

export class CollectingPublisher implements TracePublisher {
  readonly messages: BusMessage[] = [];
  /** Answers for the next publish calls, in order; each is used once. */
  readonly queuedFailures: PublishFailure[] = [];
  calls = 0;

  async publish(messages: BusMessage[]): Promise<Result<void, PublishFailure>> {
    this.calls += 1;
    const queued = this.queuedFailures.shift();
    if (queued !== undefined) return failure(queued);
    this.messages.push(...messages);
    return success(undefined);
  }
}
