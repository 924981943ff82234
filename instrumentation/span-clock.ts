/**
 * Start and end times for ragscope's spans: sub-millisecond, and strictly increasing within the process.
 *
 * The OTel SDK's default start time is Date.now(), whole milliseconds: two awaited stages (a draft generation, then
 * the final one) often start in the same millisecond, and the collector could not tell which came last — the
 * request's model was the draft's for half the requests. The performance clock (the one feedback spans already used)
 * tells them apart (its fraction of a millisecond, beside the wall clock's milliseconds); a call in the same microsecond as the previous one, or a clock that does not advance between two
 * calls, still gets a later time, by one microsecond (well above a double's spacing at today's epoch milliseconds,
 * ~0.24 µs, so each time is a distinct nanosecond after OTel's conversion).
 *
 * A span given its start time takes Date.now() for its end when none is given (OTel cannot measure a duration from a
 * start it did not read), which can be before a sub-millisecond start: a span started here is ended here too.
 */
const STEP_MS = 0.001;

let last = 0;

/**
 * Epoch milliseconds with a fraction, later than any returned before. The whole milliseconds are the wall clock's
 * and only the fraction the performance clock's: `timeOrigin + now()` alone drifts from the wall clock over a long
 * uptime or a host's sleep (the reason OpenTelemetry's SDK takes Date.now()), which would put ragscope's spans off
 * the other instrumentations' on the same timeline.
 */
export function nextSpanTime(): number {
  last = Math.max(Date.now() + (performance.now() % 1), last + STEP_MS);
  return last;
}
