/**
 * Problems inside ragscope's own tracing code: an extractor that threw or
 * returned something of the wrong shape, an attribute value OTel cannot carry.
 *
 * Tracing must never break the application (the stage wrappers always hand the
 * application its value back), but silently lost telemetry is the worst bug an
 * observability product can have (STYLE.md "Bounded buffers"), so every problem
 * is counted here and logged through the OTel diagnostic logger.
 *
 * Most applications set no diagnostic logger, so the first problem of each
 * kind (span or adapter) is also said once on standard error: a retrieval
 * whose chunks lack `chunkId` otherwise recorded no chunk, and the only sign
 * was an empty list in the UI.
 */
import { diag } from "@opentelemetry/api";

let errorCount = 0;
/** Where a problem was already said on standard error; bounded, as `where` names a span or an adapter. */
const saidOnStandardError = new Set<string>();
const MAX_PLACES_SAID = 64;

/** How many instrumentation problems this process has had since it started. */
export function instrumentationErrors(): number {
  return errorCount;
}

export function reportInstrumentationError(where: string, problem: unknown): void {
  errorCount += 1;
  const message = `ragscope: ${where}: ${describeProblem(problem)}`;
  try {
    diag.warn(message);
  } catch {
    // A throwing diagnostic logger is not allowed to reach the application either.
  }
  if (saidOnStandardError.has(where) || saidOnStandardError.size >= MAX_PLACES_SAID) return;
  saidOnStandardError.add(where);
  try {
    process.stderr.write(
      `${message} (the application got its value unchanged; the span lacks what could not be recorded. Said once for ${where}: instrumentationErrors() counts every problem, and an OpenTelemetry diagnostic logger, diag.setLogger, shows each)\n`,
    );
  } catch {
    // Standard error closed: the count still holds.
  }
}

/** Runs `action`, counting instead of propagating anything it throws. */
export function guarded(where: string, action: () => void): void {
  try {
    action();
  } catch (error) {
    reportInstrumentationError(where, error);
  }
}

export function describeProblem(problem: unknown): string {
  try {
    if (problem instanceof Error) return `${problem.name}: ${problem.message}`;
    if (typeof problem === "object" && problem !== null) return JSON.stringify(problem) ?? String(problem);
    return String(problem);
  } catch {
    return "unprintable value";
  }
}
