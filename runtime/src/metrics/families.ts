// Counters and histograms for the per-request hot path, registered in a
// prom-client Registry and rendered by it. prom-client's own Counter and
// Histogram hash and validate the label object on every inc/observe; these
// resolve a label set to its cell once (`cell(labels)`), after which a count
// is a field increment.
// Justified by metrics-cost-rest-get-asset-cpu (bench/hand-written-parts.md#metric-families).
import type { Registry } from 'prom-client';

type Labels<N extends string> = Readonly<Record<N, string>>;

interface MetricValue {
  readonly value: number;
  readonly labels: Readonly<Record<string, string | number>>;
  readonly metricName?: string;
}

/** What prom-client's Registry reads from a metric when it renders or resets it. */
abstract class Family<N extends string, C> {
  readonly #cells = new Map<string, { labels: Labels<N>; cell: C }>();

  constructor(
    registry: Registry,
    readonly name: string,
    readonly help: string,
    readonly type: 'counter' | 'histogram',
    readonly labelNames: readonly N[],
  ) {
    registry.registerMetric(this as unknown as Parameters<Registry['registerMetric']>[0]);
  }

  /** The cell of one label set, made (at zero) on first use; keep it and count on it directly. */
  cell(labels: Labels<N>): C {
    const key = this.labelNames.map((name) => labels[name]).join('\u0000');
    let entry = this.#cells.get(key);
    if (entry === undefined) {
      entry = { labels: { ...labels }, cell: this.create() };
      this.#cells.set(key, entry);
    }
    return entry.cell;
  }

  /** Series made so far. */
  get size(): number {
    return this.#cells.size;
  }

  protected abstract create(): C;
  protected abstract values(labels: Labels<N>, cell: C): MetricValue[];

  /** For prom-client's Registry. */
  async get(): Promise<{ name: string; help: string; type: string; aggregator: 'sum'; values: MetricValue[] }> {
    const values: MetricValue[] = [];
    for (const { labels, cell } of this.#cells.values()) values.push(...this.values(labels, cell));
    return { name: this.name, help: this.help, type: this.type, aggregator: 'sum', values };
  }

  /** For prom-client's Registry (resetMetrics). */
  reset(): void {
    this.#cells.clear();
  }
}

export interface CounterCell {
  value: number;
}

export class CounterFamily<N extends string = never> extends Family<N, CounterCell> {
  constructor(registry: Registry, options: { name: string; help: string; labelNames?: readonly N[] }) {
    super(registry, options.name, options.help, 'counter', options.labelNames ?? []);
  }

  protected create(): CounterCell {
    return { value: 0 };
  }

  protected values(labels: Labels<N>, cell: CounterCell): MetricValue[] {
    return [{ value: cell.value, labels }];
  }
}

export class HistogramCell {
  /** Per bucket (not cumulative), the last one for values above every bound. */
  readonly counts: number[];
  sum = 0;
  count = 0;

  constructor(readonly bounds: readonly number[]) {
    this.counts = new Array<number>(bounds.length + 1).fill(0);
  }

  observe(value: number): void {
    let index = 0;
    while (index < this.bounds.length && value > this.bounds[index]!) index++;
    this.counts[index]! += 1;
    this.sum += value;
    this.count += 1;
  }
}

export class HistogramFamily<N extends string = never> extends Family<N, HistogramCell> {
  readonly #bounds: readonly number[];

  constructor(registry: Registry, options: { name: string; help: string; labelNames?: readonly N[]; buckets: readonly number[] }) {
    super(registry, options.name, options.help, 'histogram', options.labelNames ?? []);
    this.#bounds = [...options.buckets].sort((a, b) => a - b);
  }

  protected create(): HistogramCell {
    return new HistogramCell(this.#bounds);
  }

  protected values(labels: Labels<N>, cell: HistogramCell): MetricValue[] {
    const values: MetricValue[] = [];
    let cumulative = 0;
    this.#bounds.forEach((bound, index) => {
      cumulative += cell.counts[index]!;
      values.push({ metricName: `${this.name}_bucket`, labels: { ...labels, le: bound }, value: cumulative });
    });
    values.push({ metricName: `${this.name}_bucket`, labels: { ...labels, le: '+Inf' }, value: cell.count });
    values.push({ metricName: `${this.name}_sum`, labels, value: cell.sum });
    values.push({ metricName: `${this.name}_count`, labels, value: cell.count });
    return values;
  }
}
