/**
 * A time-series panel's bucket size, as Grafana picks it: the range divided
 * by the points the panel can show, rounded up to a readable interval, never
 * under one second.
 */
const NICE_INTERVALS_MS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1_800, 3_600, 7_200, 10_800, 21_600, 43_200, 86_400, 604_800, 2_592_000].map((seconds) => seconds * 1000);

export function panelIntervalMs(fromMs: number, toMs: number, maxDataPoints: number): number {
  const raw = Math.max(toMs - fromMs, 1) / Math.max(maxDataPoints, 1);
  return NICE_INTERVALS_MS.find((interval) => interval >= raw) ?? NICE_INTERVALS_MS[NICE_INTERVALS_MS.length - 1]!;
}
