/**
 * Request bodies posted to a receiver in order, a few at a time, but never
 * beyond a limit the test raises as it goes: a crash test holds the rest of
 * the load back until it is ready for the next kill, so that requests are
 * still flowing when the kill comes, however slowly the machine restarts the
 * previous victim.
 */
import { postBody } from "./collector-processes.js";

export interface MeteredPosting {
  /** Bodies the receiver has acknowledged. */
  posted(): number;
  /** Bodies that may be posted (posted() stops there until the limit is raised). */
  limit(): number;
  /** Lets posting go on up to `count` bodies (never lowers the limit, never beyond the last body). */
  allowUpTo(count: number): void;
  /** The first post that failed for good (not a 503 retried), null while none has. */
  error(): Error | null;
  /** Resolves once every body is posted (the limit must reach the last one); rejects with the first failure. */
  readonly finished: Promise<void>;
}

export function startMeteredPosting(receiverUrl: string, bodies: readonly Uint8Array[], initialLimit: number, concurrency = 4): MeteredPosting {
  let limit = Math.min(initialLimit, bodies.length);
  let next = 0;
  let posted = 0;
  let failure: Error | null = null;
  let raised: () => void = () => {};
  let limitRaised = new Promise<void>((resolve) => (raised = resolve));
  const worker = async () => {
    while (next < bodies.length) {
      if (next >= limit) {
        await limitRaised;
        continue;
      }
      await postBody(receiverUrl, bodies[next++]!);
      posted += 1;
    }
  };
  const finished = Promise.all(Array.from({ length: concurrency }, worker)).then(
    () => undefined,
    (error: unknown) => {
      failure = error instanceof Error ? error : new Error(String(error));
      throw failure;
    },
  );
  // A test that fails elsewhere may never await `finished`; its rejection is still reported through error().
  finished.catch(() => {});
  return {
    posted: () => posted,
    limit: () => limit,
    allowUpTo(count) {
      const raisedTo = Math.min(Math.max(limit, count), bodies.length);
      if (raisedTo === limit) return;
      limit = raisedTo;
      const wake = raised;
      limitRaised = new Promise<void>((resolve) => (raised = resolve));
      wake();
    },
    error: () => failure,
    finished,
  };
}
