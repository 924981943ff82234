/**
 * Server-sent events for the live traces list. One watcher per UI server asks
 * the store for the newest trace every `pollMilliseconds` — one small query
 * whatever the number of open lists, and none while no list is open — and
 * tells every open stream when it changed; each list then fetches its own
 * filtered rows. Streams are bounded (`maxStreams`): one past the bound is
 * refused with 503 and the page falls back to polling.
 */
import type { TenantScope } from "../../store/ports/tenant-scope.js";
import type { TraceReader } from "../../store/ports/trace-reader.js";

export interface TraceEventsOptions {
  pollMilliseconds: number;
  maxStreams: number;
  /**
   * At most this many of them for one reviewer token (default a quarter of maxStreams, at least 1), so that one
   * reviewer — or one tenant's token — cannot take every stream and leave the others polling. Without tokens
   * everyone is the one local reviewer, and only maxStreams holds.
   */
  maxStreamsPerReviewer?: number;
  /** A comment line every this many polls keeps idle connections open through proxies. */
  keepAliveEvery?: number;
}

export interface TraceEventSubscriber {
  /** The newest trace changed (or, first, what it is now). */
  onNewest(newest: { caseResultId: string; startedAt: string } | null): void;
  onKeepAlive(): void;
  /** The server is closing: end the stream. */
  onClose(): void;
}

export const DEFAULT_TRACE_EVENTS: TraceEventsOptions = { pollMilliseconds: 1000, maxStreams: 32, keepAliveEvery: 15 };

export class TraceEvents {
  private readonly subscribers = new Set<TraceEventSubscriber>();
  private timer: NodeJS.Timeout | null = null;
  private newestKey: string | null = null;
  private newest: { caseResultId: string; startedAt: string } | null = null;
  private polls = 0;
  private checking = false;
  private closed = false;

  constructor(
    private readonly traces: TraceReader,
    private readonly options: TraceEventsOptions,
  ) {}

  get openStreams(): number {
    return this.subscribers.size;
  }

  /** Null when the bound is reached (or the server is closing); otherwise the function that unsubscribes. */
  subscribe(subscriber: TraceEventSubscriber): (() => void) | null {
    if (this.closed || this.subscribers.size >= this.options.maxStreams) return null;
    this.subscribers.add(subscriber);
    if (this.newestKey !== null) subscriber.onNewest(this.newest);
    if (this.timer === null) {
      this.timer = setInterval(() => void this.check(), this.options.pollMilliseconds);
      void this.check();
    }
    return () => {
      this.subscribers.delete(subscriber);
      if (this.subscribers.size === 0 && this.timer !== null) {
        clearInterval(this.timer);
        this.timer = null;
        // Nobody watched in between: the next subscriber gets the newest as it is then.
        this.newestKey = null;
      }
    };
  }

  private async check(): Promise<void> {
    if (this.checking) return;
    this.checking = true;
    try {
      const [newest] = (await this.traces.listTraces({}, { after: null, limit: 1 })).traces;
      const key = newest === undefined ? "" : `${newest.startedAt}\u0000${newest.caseResultId}`;
      this.polls += 1;
      if (key !== this.newestKey) {
        this.newestKey = key;
        this.newest = newest === undefined ? null : { caseResultId: newest.caseResultId, startedAt: newest.startedAt };
        for (const subscriber of this.subscribers) subscriber.onNewest(this.newest);
      } else if (this.polls % (this.options.keepAliveEvery ?? 15) === 0) {
        for (const subscriber of this.subscribers) subscriber.onKeepAlive();
      }
    } catch {
      // The store did not answer this time; the next poll asks again, and the lists keep what they show.
    } finally {
      this.checking = false;
    }
  }

  close(): void {
    this.closed = true;
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    for (const subscriber of [...this.subscribers]) subscriber.onClose();
    this.subscribers.clear();
  }
}

/** Why a stream was not opened: every stream of the server is taken, or every one this reviewer may hold. */
export type StreamRefusal = "server" | "reviewer";

/** Who opens a stream: the reviewer, and whether a token proved it (only then is the per-reviewer bound kept). */
export interface StreamOwner {
  reviewer: string;
  authenticated: boolean;
}

/**
 * The live list's events per tenant scope: a stream is told only about traces
 * its reader may see (one watcher per scope, on that scope's trace reader), so
 * a tenant's open list never learns that another tenant's trace arrived. The
 * bound on open streams is shared by every scope; each reviewer token holds at
 * most its share of it.
 */
export class TraceEventsByScope {
  private readonly byScope = new Map<string, TraceEvents>();
  /** Open streams per reviewer. */
  private readonly byReviewer = new Map<string, number>();
  private closed = false;

  constructor(
    private readonly tracesFor: (scope: TenantScope) => TraceReader,
    private readonly options: TraceEventsOptions,
  ) {}

  get openStreams(): number {
    let open = 0;
    for (const events of this.byScope.values()) open += events.openStreams;
    return open;
  }

  /** The function that unsubscribes; or why not, when a bound is reached (or the server is closing: "server"). */
  subscribe(scope: TenantScope, owner: StreamOwner, subscriber: TraceEventSubscriber): { unsubscribe: () => void } | { refused: StreamRefusal } {
    if (this.closed || this.openStreams >= this.options.maxStreams) return { refused: "server" };
    const held = this.byReviewer.get(owner.reviewer) ?? 0;
    if (owner.authenticated && held >= this.maxStreamsPerReviewer) return { refused: "reviewer" };
    const key = scope === "all" ? "*" : JSON.stringify([...scope].sort());
    let events = this.byScope.get(key);
    if (events === undefined) {
      events = new TraceEvents(this.tracesFor(scope), this.options);
      this.byScope.set(key, events);
    }
    const unsubscribe = events.subscribe(subscriber);
    if (unsubscribe === null) return { refused: "server" };
    this.byReviewer.set(owner.reviewer, held + 1);
    let open = true;
    return {
      unsubscribe: () => {
        unsubscribe();
        if (!open) return;
        open = false;
        const left = (this.byReviewer.get(owner.reviewer) ?? 1) - 1;
        if (left === 0) this.byReviewer.delete(owner.reviewer);
        else this.byReviewer.set(owner.reviewer, left);
      },
    };
  }

  get maxStreamsPerReviewer(): number {
    return this.options.maxStreamsPerReviewer ?? Math.max(1, Math.floor(this.options.maxStreams / 4));
  }

  close(): void {
    this.closed = true;
    for (const events of this.byScope.values()) events.close();
  }
}
