/**
 * Runs one pipeline stage inside a ragscope span; every stage wrapper
 * (stages/*.ts) is a thin description handed to `runInSpan`.
 *
 * Guarantees, in order of importance:
 * 1. The application's behaviour is unchanged: `fn` runs exactly once, its value
 *    is returned as is, and its exception is rethrown as the same object.
 * 2. Tracing never throws (stage-span.ts): what goes wrong is counted and the
 *    span goes on without those attributes. If no span can be started at all,
 *    `fn` runs untraced.
 * 3. Nesting: the span is the active span while `fn` runs, so stages called
 *    inside `traceRequest` become children of `rag.request`.
 */
import { context } from "@opentelemetry/api";
import { RagSpanName } from "../contracts/span-attributes.js";
import { guarded, reportInstrumentationError } from "./instrumentation-errors.js";
import { startStageSpan, type StageDefinition, type StageSpan } from "./stage-span.js";

export type { StageDefinition } from "./stage-span.js";

export function runInSpan<T>(definition: StageDefinition<T>, fn: () => Promise<T> | T): Promise<T> {
  const stageSpan = startStageSpan(definition);
  if (stageSpan === undefined) return runUntraced(fn);
  let traced: Promise<T> | undefined;
  try {
    return context.with(stageSpan.context, () => {
      traced = runWithSpan(stageSpan, fn);
      return traced;
    });
  } catch (error) {
    // Only tracing code runs synchronously here (`runWithSpan` is async, so
    // `fn`'s own errors arrive as a rejection), so this is a tracing failure.
    reportInstrumentationError(RagSpanName[definition.stage], error);
    if (traced !== undefined) return traced;
    guarded(RagSpanName[definition.stage], () => stageSpan.span.end());
    return runUntraced(fn);
  }
}

async function runWithSpan<T>(stageSpan: StageSpan<T>, fn: () => Promise<T> | T): Promise<T> {
  let value: T;
  try {
    value = await fn();
  } catch (error) {
    stageSpan.fail(error);
    throw error;
  }
  stageSpan.succeed(value);
  return value;
}

async function runUntraced<T>(fn: () => Promise<T> | T): Promise<T> {
  return await fn();
}
