/**
 * The collector's own metrics, rendered in the Prometheus text exposition
 * format (version 0.0.4) for `GET /metrics`.
 *
 * Counters and gauges are read at scrape time from the counters the parts of
 * the collector already keep (receiver, worker, consumer, sink), so nothing is
 * counted twice and nothing can drift. Histograms (sink latency) are observed
 * as events happen. A name registered twice is a bug and throws.
 */
export type Labels = Readonly<Record<string, string>>;

export interface Sample {
  labels?: Labels;
  value: number;
}

type Collect = () => number | readonly Sample[];

interface CollectedMetric {
  kind: "counter" | "gauge";
  name: string;
  help: string;
  collect: Collect;
}

const namePattern = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const labelPattern = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

export class Histogram {
  private readonly counts: number[];
  private sum = 0;
  private count = 0;

  constructor(
    readonly name: string,
    readonly help: string,
    readonly buckets: readonly number[],
  ) {
    this.counts = buckets.map(() => 0);
  }

  observe(value: number): void {
    this.sum += value;
    this.count += 1;
    for (const [index, bound] of this.buckets.entries()) if (value <= bound) this.counts[index]! += 1;
  }

  render(): string[] {
    const lines = [`# HELP ${this.name} ${escapeHelp(this.help)}`, `# TYPE ${this.name} histogram`];
    for (const [index, bound] of this.buckets.entries()) lines.push(`${this.name}_bucket{le="${formatValue(bound)}"} ${this.counts[index]}`);
    lines.push(`${this.name}_bucket{le="+Inf"} ${this.count}`, `${this.name}_sum ${formatValue(this.sum)}`, `${this.name}_count ${this.count}`);
    return lines;
  }

  get total(): { count: number; sum: number } {
    return { count: this.count, sum: this.sum };
  }
}

export class MetricsRegistry {
  private readonly metrics: (CollectedMetric | Histogram)[] = [];
  private readonly names = new Set<string>();

  counter(name: string, help: string, collect: Collect): void {
    this.add({ kind: "counter", name, help, collect });
  }

  gauge(name: string, help: string, collect: Collect): void {
    this.add({ kind: "gauge", name, help, collect });
  }

  has(name: string): boolean {
    return this.names.has(name);
  }

  /**
   * Adds samples to a counter or gauge registered before: one metric with
   * several label sets fed by different parts (the receiver and the evaluator
   * in one process both count spans received, under different `role` labels).
   */
  extend(name: string, more: () => readonly Sample[]): void {
    const metric = this.metrics.find((candidate): candidate is CollectedMetric => !(candidate instanceof Histogram) && candidate.name === name);
    if (!metric) throw new Error(`metric ${name} is not registered`);
    const first = metric.collect;
    metric.collect = () => {
      const collected = first();
      return [...(typeof collected === "number" ? [{ value: collected }] : collected), ...more()];
    };
  }

  /**
   * The sum of a counter's or gauge's samples whose labels include `labels`,
   * read now: what /metrics would show, for the health snapshots. A name that
   * is not registered is a bug and throws.
   */
  sum(name: string, labels: Labels = {}): number {
    return this.sumOrNull(name, labels) ?? 0;
  }

  /** As sum, but null when no sample matches: a gauge with nothing to say (the engine memory of a ClickHouse server) is not a zero. */
  sumOrNull(name: string, labels: Labels = {}): number | null {
    const values = this.values(name, labels);
    return values.length === 0 ? null : values.reduce((total, value) => total + value, 0);
  }

  /** The largest of a gauge's samples whose labels include `labels` (the fullest of the store's tables); null when none matches. */
  maxOrNull(name: string, labels: Labels = {}): number | null {
    const values = this.values(name, labels);
    return values.length === 0 ? null : Math.max(...values);
  }

  /** The finite values of a counter's or gauge's samples whose labels include `labels`, read now; a name not registered throws. */
  private values(name: string, labels: Labels): number[] {
    const metric = this.metrics.find((candidate): candidate is CollectedMetric => !(candidate instanceof Histogram) && candidate.name === name);
    if (!metric) throw new Error(`metric ${name} is not registered`);
    const collected = metric.collect();
    const samples = typeof collected === "number" ? [{ value: collected }] : collected;
    const values: number[] = [];
    for (const sample of samples) {
      if (!Object.entries(labels).every(([label, value]) => sample.labels?.[label] === value)) continue;
      if (Number.isFinite(sample.value)) values.push(sample.value);
    }
    return values;
  }

  histogram(name: string, help: string, buckets: readonly number[]): Histogram {
    const histogram = new Histogram(name, help, [...buckets].sort((left, right) => left - right));
    this.add(histogram);
    return histogram;
  }

  render(): string {
    const lines: string[] = [];
    for (const metric of this.metrics) {
      if (metric instanceof Histogram) {
        lines.push(...metric.render());
        continue;
      }
      lines.push(`# HELP ${metric.name} ${escapeHelp(metric.help)}`, `# TYPE ${metric.name} ${metric.kind}`);
      const collected = metric.collect();
      const samples = typeof collected === "number" ? [{ value: collected }] : collected;
      for (const sample of samples) lines.push(`${metric.name}${formatLabels(sample.labels)} ${formatValue(sample.value)}`);
    }
    return `${lines.join("\n")}\n`;
  }

  private add(metric: CollectedMetric | Histogram): void {
    if (!namePattern.test(metric.name)) throw new Error(`invalid metric name ${JSON.stringify(metric.name)}`);
    if (this.names.has(metric.name)) throw new Error(`metric ${metric.name} is registered twice`);
    this.names.add(metric.name);
    this.metrics.push(metric);
  }
}

function formatLabels(labels: Labels | undefined): string {
  if (!labels) return "";
  const entries = Object.entries(labels);
  if (entries.length === 0) return "";
  for (const [name] of entries) if (!labelPattern.test(name)) throw new Error(`invalid label name ${JSON.stringify(name)}`);
  return `{${entries.map(([name, value]) => `${name}="${escapeLabelValue(value)}"`).join(",")}}`;
}

/** Label values escape backslash, double quote and line feed (exposition format 0.0.4). */
export function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

/** HELP text escapes backslash and line feed. */
function escapeHelp(text: string): string {
  return text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
}

export function formatValue(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (value === Infinity) return "+Inf";
  if (value === -Infinity) return "-Inf";
  return String(value);
}

/** Reads one sample back from exposition text, for probes and tests: `name{labels} value`. */
export function readSample(text: string, name: string, labels: Labels = {}): number | null {
  const wanted = formatLabels(labels);
  for (const line of text.split("\n")) {
    if (line.startsWith("#")) continue;
    const space = line.lastIndexOf(" ");
    if (space < 0) continue;
    if (line.slice(0, space) === `${name}${wanted}`) return Number(line.slice(space + 1));
  }
  return null;
}
