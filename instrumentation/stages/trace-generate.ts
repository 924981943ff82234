/**
 * `rag.generate`: the model call that writes the answer (OpenInference LLM):
 * model, prompt and answer messages, tokens, cost, time to first token, and
 * whether the answer abstained.
 */
import { OpenInference, OpenInferenceSpanKind, RagStage, Ragscope, flattenedKey } from "../../contracts/span-attributes.js";
import { readGenerationRecord, type GenerationRecord } from "../records/generation-record.js";
import { runInSpan, type StageDefinition } from "../run-in-span.js";
import type { AttributeRecorder } from "../safe-attributes.js";

export interface GenerateOptions {
  model: string;
  provider?: string;
  /** The full prompt sent to the model; recorded only when text capture is on. */
  prompt?: string;
  promptVersion?: string;
}

/** Traces a generation. The record is read with `toGeneration`, or is the value itself. */
export function traceGenerate<T = GenerationRecord>(
  options: GenerateOptions,
  fn: () => Promise<T> | T,
  toGeneration?: (value: T) => GenerationRecord,
): Promise<T> {
  return runInSpan(generateStage(options, toGeneration), fn);
}

/**
 * The span description of this stage, shared by the wrapper and the framework adapters. An adapter whose framework
 * reports no model name passes `model: undefined`: the span carries none (the collector reads it as not recorded),
 * rather than a class name or "unknown" that no provider sent.
 */
export function generateStage<T>(options: Omit<GenerateOptions, "model"> & { model: string | undefined }, toGeneration?: (value: T) => GenerationRecord): StageDefinition<T> {
  return {
    stage: RagStage.generate,
    spanKind: OpenInferenceSpanKind.llm,
    recordStart: (recorder, configuration) => {
      recorder.set(OpenInference.llmModelName, options.model);
      recorder.set(OpenInference.llmProvider, options.provider);
      recorder.set(OpenInference.llmPromptTemplateVersion, options.promptVersion);
      if (configuration.captureText && options.prompt !== undefined) {
        recordMessage(recorder, OpenInference.llmInputMessagesPrefix, "user", options.prompt);
      }
    },
    recordResult: (recorder, value, configuration) => {
      const generation = readGenerationRecord(toGeneration !== undefined ? toGeneration(value) : value);
      if (!generation.ok) {
        recorder.problem(generation.error);
        return;
      }
      recordGeneration(recorder, generation.value, configuration.captureText);
    },
  };
}

function recordGeneration(recorder: AttributeRecorder, generation: GenerationRecord, captureText: boolean): void {
  recordMessage(recorder, OpenInference.llmOutputMessagesPrefix, "assistant", captureText ? generation.text : undefined);
  if (captureText) {
    recorder.set(OpenInference.outputValue, generation.text);
    recorder.set(Ragscope.answer, generation.text);
  }
  const inputTokens = measured(recorder, "inputTokens", generation.inputTokens);
  const outputTokens = measured(recorder, "outputTokens", generation.outputTokens);
  recorder.set(OpenInference.llmTokenCountPrompt, inputTokens);
  recorder.set(OpenInference.llmTokenCountCompletion, outputTokens);
  if (typeof inputTokens === "number" && typeof outputTokens === "number") {
    recorder.set(OpenInference.llmTokenCountTotal, inputTokens + outputTokens);
  }
  recorder.set(OpenInference.llmCostTotal, measured(recorder, "cost", generation.cost));
  recorder.set(Ragscope.timeToFirstTokenMs, measured(recorder, "timeToFirstTokenMs", generation.timeToFirstTokenMs));
  recorder.set(Ragscope.abstained, recorder.boolean("generation record's abstained", generation.abstained));
}

/**
 * The value, or undefined (left off the span, with a problem said) when it is not a number (recorder.number) or is
 * below 0: a count, a cost or a duration cannot be negative, and a provider's -1 for "unknown" recorded as a value
 * would be averaged as one.
 */
function measured(recorder: AttributeRecorder, field: string, value: unknown): number | undefined {
  const number = recorder.number(`generation record's ${field}`, value);
  if (number === undefined || number >= 0) return number;
  recorder.problem(`generation record's ${field} is ${number}, below 0: left off the span (a count, a cost or a duration cannot be negative; leave the field out when it is not known)`);
  return undefined;
}

/** `llm.{input,output}_messages.0.message.{role,content}`: one message at index 0. */
function recordMessage(recorder: AttributeRecorder, prefix: string, role: string, content: string | undefined): void {
  recorder.set(flattenedKey(prefix, 0, OpenInference.messageRole), role);
  recorder.set(flattenedKey(prefix, 0, OpenInference.messageContent), content);
}
