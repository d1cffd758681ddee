import { TRANSFORM_FORMATS, type TransformObserver, type TransformOutcome } from '@switchyard/core';
import { capacityRefusalCell, Gauge, HistogramFamily, type HistogramCell, type Registry } from '@switchyard/runtime';

/** A 16 px thumbnail of a small PNG takes milliseconds; a 50-megapixel source to AVIF, seconds. */
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const OUTCOMES: readonly TransformOutcome[] = ['ok', 'invalid', 'error'];

/**
 * The image transformations of this service process, for the core's
 * VariantMaker: `switchyard_transform_queue_depth` (waiting for a slot),
 * `switchyard_transforms_in_progress` (holding one),
 * `switchyard_transform_seconds` (the work in a slot: reading the source,
 * decoding, resizing, encoding) by output `format` and `outcome` (`ok`,
 * `invalid` for a source that cannot be transformed, `error`), and refusals
 * of a full queue as `switchyard_capacity_refusals_total{bound="transforms"}`.
 * Every series exists at zero from the start.
 */
export function transformMetrics(registry: Registry): TransformObserver {
  const depth = new Gauge({
    name: 'switchyard_transform_queue_depth',
    help: 'Image transformations waiting for a slot (TRANSFORM_CONCURRENCY).',
    registers: [registry],
  });
  const running = new Gauge({
    name: 'switchyard_transforms_in_progress',
    help: 'Image transformations holding a slot now.',
    registers: [registry],
  });
  const histogram = new HistogramFamily(registry, {
    name: 'switchyard_transform_seconds',
    help: 'Time image transformations hold their slot (reading the source, decoding, resizing, encoding), by output format and outcome.',
    labelNames: ['format', 'outcome'] as const,
    buckets: BUCKETS,
  });
  const cells = new Map<string, HistogramCell>();
  for (const format of TRANSFORM_FORMATS)
    for (const outcome of OUTCOMES) cells.set(`${format} ${outcome}`, histogram.cell({ format, outcome }));
  const refusals = capacityRefusalCell(registry, 'transforms');
  return {
    queue: (waiting, inProgress) => {
      depth.set(waiting);
      running.set(inProgress);
    },
    worked: (format, outcome, seconds) => cells.get(`${format} ${outcome}`)?.observe(seconds),
    refused: () => void (refusals.value += 1),
  };
}
