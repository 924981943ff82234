/**
 * Values in 0..1 as ordered buckets, so that a judge's graded values (0.33,
 * 0.67, 1 for a 0..3 scale) and a human's can be compared with (weighted)
 * kappa. Bucket i holds edges[i-1] <= value < edges[i]; the last bucket is
 * closed at 1. The default edges 0.25 / 0.5 / 0.75 put the four points of a
 * 0..3 scale (0, 1/3, 2/3, 1) in four different buckets.
 */
export const DEFAULT_BUCKET_EDGES: readonly number[] = [0.25, 0.5, 0.75];

export function bucketLabels(edges: readonly number[] = DEFAULT_BUCKET_EDGES): string[] {
  const bounds = [0, ...edges, 1];
  return bounds.slice(0, -1).map((lower, index) => `${lower}-${bounds[index + 1]}`);
}

export function bucketOf(value: number, edges: readonly number[] = DEFAULT_BUCKET_EDGES): string {
  if (!Number.isFinite(value) || value < 0 || value > 1) throw new RangeError(`a bucketed value must be in 0..1, got ${value}`);
  const labels = bucketLabels(edges);
  const position = edges.filter((edge) => value >= edge).length;
  return labels[position] as string;
}
