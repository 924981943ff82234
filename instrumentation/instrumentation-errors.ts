/**
 * Problems inside ragscope's own tracing code: an extractor that threw or
 * returned something of the wrong shape, an attribute value OTel cannot carry.
 *
 * Tracing must never break the application (the stage wrappers always hand the
 * application its value back), but silently lost telemetry is the worst bug an
 * observability product can have (STYLE.md "Bounded buffers"), so every problem
 * is counted here and logged through the OTel diagnostic logger.
 */
import { diag } from "@opentelemetry/api";

let errorCount = 0;

/** How many instrumentation problems this process has had since it started. */
export function instrumentationErrors(): number {
  return errorCount;
}

export function reportInstrumentationError(where: string, problem: unknown): void {
  errorCount += 1;
  try {
    diag.warn(`ragscope: ${where}: ${describeProblem(problem)}`);
  } catch {
    // A throwing diagnostic logger is not allowed to reach the application either.
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
