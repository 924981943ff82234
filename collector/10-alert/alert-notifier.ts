/**
 * Runs the alert evaluator on the metric values the collector writes and
 * delivers every transition to each configured delivery (webhook, Kafka
 * topic, alerts table), in order, each with the retry helper's policy. A
 * delivery that keeps failing is counted and logged — alerting never blocks
 * the evaluation path: `observe` returns at once, deliveries run behind it,
 * `flush` awaits them.
 *
 * A timer re-evaluates the rules every `tickMs`, so a window that slides past
 * its samples (traffic stopped) is noticed without new samples.
 *
 * Before the deliveries, each transition's rule state is saved in `state`
 * (the store's AlertSink), so an evaluator started again on the same store
 * resumes it (alert-evaluator.ts `restore`).
 */
import { retry, type RetryPolicy } from "../../core/retry.js";
import { stateAfter, type AlertSink } from "../../store/ports/alert-sink.js";
import type { AlertDelivery, DeliveryFailure } from "./alert-delivery.js";
import type { AlertEvent } from "./alert-event.js";
import type { AlertEvaluator, RuleStatus } from "./alert-evaluator.js";
import type { MetricSample } from "./metric-sample.js";

export interface AlertNotifierOptions {
  evaluator: AlertEvaluator;
  deliveries: readonly AlertDelivery[];
  /** Where rule states are saved on each transition; absent: state is lost on restart. */
  state?: Pick<AlertSink, "saveState">;
  retry: RetryPolicy;
  /** Re-evaluation period; 0 = only when samples arrive. */
  tickMs: number;
  clock?: () => number;
  log?: (line: string) => void;
}

const RECENT_EVENTS = 100;

export class AlertNotifier {
  readonly counters = { samples: 0, firing: 0, resolved: 0, delivered: 0, deliveryFailures: 0, stateSaveFailures: 0 };
  /** The latest transitions, newest last, for inspection. */
  readonly recentEvents: AlertEvent[] = [];
  private chain: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | null = null;
  private readonly clock: () => number;
  private readonly log: (line: string) => void;

  constructor(private readonly options: AlertNotifierOptions) {
    this.clock = options.clock ?? Date.now;
    this.log = options.log ?? ((line) => console.warn(line));
    if (options.tickMs > 0) {
      this.timer = setInterval(() => this.publish(options.evaluator.evaluate(this.clock())), options.tickMs);
      this.timer.unref();
    }
  }

  observe(samples: readonly MetricSample[]): void {
    if (samples.length === 0) return;
    this.counters.samples += samples.length;
    this.publish(this.options.evaluator.observe(samples, this.clock()));
  }

  /** Each rule's window now (by the notifier's clock), for /metrics (collector/wiring/observe/alert-rule-metrics.ts). */
  status(): RuleStatus[] {
    return this.options.evaluator.status(this.clock());
  }

  /** Resolves when every transition so far went through every delivery (or failed for good). */
  flush(): Promise<void> {
    return this.chain;
  }

  async close(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await this.chain;
    for (const delivery of this.options.deliveries) await delivery.close?.();
  }

  private publish(events: readonly AlertEvent[]): void {
    if (events.length === 0) return;
    for (const event of events) {
      if (event.state === "firing") this.counters.firing += 1;
      else this.counters.resolved += 1;
      this.recentEvents.push(event);
      if (this.recentEvents.length > RECENT_EVENTS) this.recentEvents.shift();
      this.log(`ragscope alert ${event.state}: ${event.message}`);
    }
    this.chain = this.chain.then(() => this.deliver(events));
  }

  private async deliver(events: readonly AlertEvent[]): Promise<void> {
    if (this.options.state !== undefined) {
      const store = this.options.state;
      const saved = await retry(() => store.saveState(events.map(stateAfter)), this.options.retry);
      if (!saved.ok) {
        this.counters.stateSaveFailures += 1;
        this.log(`ragscope alert state not saved, a restart will not know of ${events.length} transitions: ${saved.error.message}`);
      }
    }
    for (const delivery of this.options.deliveries) {
      const result = await retry<void, DeliveryFailure>(() => delivery.deliver(events), this.options.retry);
      if (result.ok) this.counters.delivered += events.length;
      else {
        this.counters.deliveryFailures += 1;
        this.log(`ragscope alert delivery to ${delivery.name} failed, ${events.length} events not delivered there: ${result.error.message}`);
      }
    }
  }
}
