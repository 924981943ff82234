/**
 * Wrappers for the Vercel AI SDK's `generateText` and `streamText` that record
 * the call as a `rag.generate` span: model, prompt, answer, token usage and,
 * for streams, time to first token taken from the stream itself.
 *
 *   import { generateText, streamText } from "ai";
 *   const { text } = await traceGenerateText(generateText, { model, prompt });
 *   const result = traceStreamText(streamText, { model, prompt });   // consume result.textStream as usual
 *
 * The AI SDK's own function is passed in, so ragscope does not depend on the
 * `ai` package and works with whichever version the application uses (v4's
 * `usage.promptTokens` or v5+'s `usage.inputTokens`). The wrappers change
 * nothing in the call: the options are passed through (streamText's
 * `onChunk`, `onFinish`, `onError` and `onAbort` are chained, the
 * application's own callbacks still run and their results are returned), the
 * result is the SDK's own object.
 *
 * Time to first token is measured from the call to the first `text-delta`
 * chunk the stream hands on — as the application's consumer pulls it.
 */
import { context } from "@opentelemetry/api";
import type { GenerationRecord } from "../records/generation-record.js";
import { startStageSpan, type StageSpan } from "../stage-span.js";
import { generateStage } from "../stages/trace-generate.js";
import { runInSpan } from "../run-in-span.js";

export interface AiSdkTraceOptions {
  /** Prompt template version, recorded as `llm.prompt_template.version`. */
  promptVersion?: string;
  /** Cost of the call from its token usage, in the pipeline's currency. */
  cost?: (usage: { inputTokens?: number; outputTokens?: number }) => number | undefined;
}

type Callback = ((event: never) => unknown) | undefined;

/** Traces `generateText(options)`; returns exactly what it returns. */
export function traceGenerateText<Generate extends (options: never) => PromiseLike<unknown>>(
  generateText: Generate,
  options: Parameters<Generate>[0],
  traceOptions: AiSdkTraceOptions = {},
): Promise<Awaited<ReturnType<Generate>>> {
  const call = generateText as unknown as (options: unknown) => PromiseLike<Awaited<ReturnType<Generate>>>;
  return runInSpan(
    generateStage<Awaited<ReturnType<Generate>>>(generateOptions(options as object, traceOptions), (value) => toGeneration(value, undefined, traceOptions)),
    async (): Promise<Awaited<ReturnType<Generate>>> => await call(options),
  );
}

/**
 * Traces `streamText(options)`. The span ends when the stream finishes, fails
 * or is aborted (through the SDK's callbacks); a stream that is never
 * consumed never finishes, as in the SDK.
 */
export function traceStreamText<Stream extends (options: never) => unknown>(
  streamText: Stream,
  options: Parameters<Stream>[0],
  traceOptions: AiSdkTraceOptions = {},
): ReturnType<Stream> {
  const call = streamText as unknown as (options: unknown) => ReturnType<Stream>;
  const startedAt = performance.now();
  let firstTokenAt: number | undefined;
  const stage: StageSpan<unknown> | undefined = startStageSpan(
    generateStage<unknown>(generateOptions(options as object, traceOptions), (value) =>
      toGeneration(value, firstTokenAt !== undefined ? firstTokenAt - startedAt : undefined, traceOptions),
    ),
  );
  if (stage === undefined) return call(options);
  const own = options as Record<string, Callback>;
  const chained = {
    ...(options as object),
    onChunk: (event: { chunk?: { type?: string } }) => {
      if (firstTokenAt === undefined && event?.chunk?.type === "text-delta") firstTokenAt = performance.now();
      return own.onChunk?.(event as never);
    },
    onFinish: (event: unknown) => {
      stage.succeed(event);
      return own.onFinish?.(event as never);
    },
    onError: (event: { error?: unknown }) => {
      stage.fail(event?.error ?? event);
      // Without an onError of the application's the AI SDK logs the error (console.error); passing one of ours
      // silenced that, and a provider failing mid-stream showed nowhere in the application.
      if (own.onError === undefined) {
        console.error(event?.error ?? event);
        return undefined;
      }
      return own.onError(event as never);
    },
    onAbort: (event: unknown) => {
      // Named as an AbortSignal's abort is: the collector reads a generation its caller stopped as cut short, not failed.
      stage.fail(Object.assign(new Error("stream aborted"), { name: "AbortError" }));
      return own.onAbort?.(event as never);
    },
  };
  try {
    return context.with(stage.context, () => call(chained));
  } catch (error) {
    stage.fail(error);
    throw error;
  }
}

function generateOptions(options: object, traceOptions: AiSdkTraceOptions): Parameters<typeof generateStage>[0] {
  const call = options as { model?: unknown; prompt?: unknown; messages?: unknown; system?: unknown };
  const model = call.model as { modelId?: unknown; provider?: unknown } | string | undefined;
  const prompt = promptText(call.system, call.prompt, call.messages);
  return {
    model: typeof model === "string" ? model : typeof model?.modelId === "string" ? model.modelId : undefined,
    ...(typeof model === "object" && typeof model?.provider === "string" ? { provider: model.provider } : {}),
    ...(prompt !== undefined ? { prompt } : {}),
    ...(traceOptions.promptVersion !== undefined ? { promptVersion: traceOptions.promptVersion } : {}),
  };
}

/** The prompt as text: system, then the prompt string or each message as `role: text`. */
function promptText(system: unknown, prompt: unknown, messages: unknown): string | undefined {
  const lines: string[] = [];
  if (typeof system === "string") lines.push(`system: ${system}`);
  if (typeof prompt === "string") lines.push(lines.length > 0 ? `user: ${prompt}` : prompt);
  const list = Array.isArray(prompt) ? prompt : Array.isArray(messages) ? messages : [];
  for (const message of list as { role?: unknown; content?: unknown }[]) {
    lines.push(`${String(message?.role ?? "message")}: ${contentText(message?.content)}`);
  }
  return lines.length > 0 ? lines.join("\n") : undefined;
}

function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((part) => (typeof part?.text === "string" ? part.text : "")).join("");
  return "";
}

function toGeneration(value: unknown, timeToFirstTokenMs: number | undefined, traceOptions: AiSdkTraceOptions): GenerationRecord {
  const result = value as { text?: unknown; totalUsage?: Record<string, unknown>; usage?: Record<string, unknown> };
  const usage = result?.totalUsage ?? result?.usage ?? {};
  const count = (...values: unknown[]) => values.find((item): item is number => typeof item === "number" && Number.isFinite(item));
  const tokens = { inputTokens: count(usage.inputTokens, usage.promptTokens), outputTokens: count(usage.outputTokens, usage.completionTokens) };
  const cost = traceOptions.cost?.(tokens);
  return {
    text: result?.text as string,
    ...tokens,
    ...(cost !== undefined ? { cost } : {}),
    ...(timeToFirstTokenMs !== undefined ? { timeToFirstTokenMs } : {}),
  };
}
