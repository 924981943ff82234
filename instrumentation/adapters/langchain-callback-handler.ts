/**
 * A LangChain.js callback handler that records a chain's RAG stages as
 * ragscope spans, so a LangChain application needs no hand-written spans:
 *
 *   const answer = await chain.invoke(question, { callbacks: [new RagscopeCallbackHandler()] });
 *
 * - the outermost chain → `rag.request` (query from its input, answer from its
 *   output), unless the call already runs inside `traceRequest`;
 * - a retriever → `rag.retrieve` with the documents it returned (ids from
 *   `Document.metadata`, langchain-documents.ts);
 * - a chain that takes the retrieved documents and returns text (the
 *   `formatDocuments` step of LangChain's RAG recipe) → `rag.context`, the
 *   chunks packed in order. Decided when the chain ends: streamed
 *   (`chain.stream`), LangChain gives such a step its input only then, and a
 *   step from documents to documents (a filter, a top-n cut) is no context;
 * - a tool (an agent's retrieval tool) → no span, its children under the
 *   nearest recorded ancestor, as other chains;
 * - a chat model or LLM → `rag.generate` with model, prompt, answer, token
 *   usage (`usage_metadata`, or `llmOutput.tokenUsage`) and, when the model
 *   streams, time to first token;
 * - other chains (maps, prompts, parsers) record no span; their children hang
 *   under the nearest recorded ancestor.
 *
 * Offline runs: put `ragscope.run_id`, `ragscope.case_id`, `ragscope.case_version`
 * (and the other ragscope.* linkage keys) into the call's `metadata`.
 *
 * Note: @langchain/core 1.x calls `handleChainStart(chain, inputs, runId,
 * parentRunId, tags, metadata, runType, runName)`, not in the order its type
 * declaration lists (callbacks/manager.js); the parameters below follow the
 * calls. Handlers are awaited (`awaitHandlers`), so span times are the calls'
 * times and every start precedes its children.
 */
import { context, type Context } from "@opentelemetry/api";
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import type { Serialized } from "@langchain/core/load/serializable";
import type { BaseMessage } from "@langchain/core/messages";
import type { LLMResult } from "@langchain/core/outputs";
import type { ChainValues } from "@langchain/core/utils/types";
import { OpenInference, Ragscope } from "../../contracts/span-attributes.js";
import { recordChunks } from "../chunk-attributes.js";
import { guarded, reportInstrumentationError } from "../instrumentation-errors.js";
import type { GenerationRecord } from "../records/generation-record.js";
import { nextSpanTime } from "../span-clock.js";
import { isInsideRequest, startStageSpan, type StageDefinition, type StageSpan } from "../stage-span.js";
import { contextStage, recordContext } from "../stages/trace-context.js";
import { generateStage } from "../stages/trace-generate.js";
import { requestStage, type RequestOptions } from "../stages/trace-request.js";
import { retrieveStage } from "../stages/trace-retrieve.js";
import { isDocumentList, toRankedChunks } from "./langchain-documents.js";

interface RunState {
  /** Where the run's children start. */
  readonly context: Context;
  readonly stage: StageSpan<never> | null;
  /** Turns the run's end value into what the stage records. */
  readonly toValue?: (value: unknown) => unknown;
  readonly startedAt: number;
  firstTokenAt?: number;
  /** A chain inside the request that records no span of its own: it is the context when it turns documents into text. */
  readonly maybeContext?: { input: unknown; startTime: number };
}

/** Runs still open; a bound so that runs whose end never comes cannot grow memory. */
const MAX_OPEN_RUNS = 10_000;

export class RagscopeCallbackHandler extends BaseCallbackHandler {
  override name = "ragscope";
  override awaitHandlers = true;
  private readonly runs = new Map<string, RunState>();

  override handleChainStart(
    _chain: Serialized,
    inputs: ChainValues,
    runId: string,
    parentRunId?: string,
    _tags?: string[],
    metadata?: Record<string, unknown>,
    _runType?: string,
    _runName?: string,
  ): void {
    guarded("langchain chain start", () => {
      const parent = this.parentContext(parentRunId);
      const input = unwrap(inputs, ["input", "question", "query"]);
      if (parentRunId === undefined && !isInsideRequest(parent)) {
        // Without `toAnswer` the request records its value only when it is text.
        this.open(runId, startStageSpan(requestStage<unknown>(requestOptions(input, metadata)), parent), parent, (outputs) => unwrap(outputs, ["output", "answer", "text"]));
        return;
      }
      // Whether it is the context is known at its end (contextAtEnd); its start is kept for the span. Only a step
      // that starts with documents, or with nothing yet (a streamed step gets its input at its end), may be one:
      // other steps' inputs are not held until they end.
      const mayBeContext = isDocumentList(input) || input === undefined || input === "";
      this.open(runId, undefined, parent, undefined, mayBeContext ? { input, startTime: nextSpanTime() } : undefined);
    });
  }

  override handleChainEnd(outputs: ChainValues, runId: string, _parentRunId?: string, _tags?: string[], kwargs?: { inputs?: Record<string, unknown> }): void {
    const run = this.runs.get(runId);
    if (run?.maybeContext !== undefined) guarded("langchain chain end", () => this.contextAtEnd(run, outputs, kwargs?.inputs));
    this.succeed(runId, outputs);
  }

  /**
   * A chain from documents to text is the context: its documents from its start, or — streamed, where LangChain
   * starts it with an empty input — from the inputs its end names; its text from its output. One that returns
   * documents (a filter) or anything but text is not.
   */
  private contextAtEnd(run: RunState, outputs: ChainValues, endInputs: Record<string, unknown> | undefined): void {
    const started = run.maybeContext!;
    const input = isDocumentList(started.input) ? started.input : unwrap(endInputs, ["input", "question", "query"]);
    const text = unwrap(outputs, ["output", "text", "context"]);
    if (!isDocumentList(input) || typeof text !== "string") return;
    const chunks = toRankedChunks(input);
    // Recorded as the retrieval is, a Document without an id with an empty id ("not recorded"; the collector reads
    // it as a packed chunk without an id), so not through contextStage's check of application-built records,
    // which refuses an empty id and would lose the whole context for one Document without an id.
    const definition: StageDefinition<string> = {
      ...contextStage<string>({}),
      recordResult: (recorder, value, configuration) => recordContext(recorder, { text: value, chunkIds: chunks.map((chunk) => chunk.record.chunkId) }, configuration.captureText),
    };
    startStageSpan(definition, run.context, started.startTime)?.succeed(text);
  }

  // A tool's run (an agent's retrieval tool) records no span; what runs inside it hangs under the nearest recorded
  // ancestor, as for other chains. Not tracked, the retrievals inside an agent's tools started traces of their own.
  override handleToolStart(_tool: Serialized, _input: string, runId: string, parentRunId?: string): void {
    guarded("langchain tool start", () => this.open(runId, undefined, this.parentContext(parentRunId)));
  }

  override handleToolEnd(output: unknown, runId: string): void {
    this.succeed(runId, output);
  }

  override handleToolError(error: unknown, runId: string): void {
    this.fail(runId, error);
  }

  override handleChainError(error: unknown, runId: string): void {
    this.fail(runId, error);
  }

  override handleRetrieverStart(retriever: Serialized, query: string, runId: string, parentRunId?: string, _tags?: string[], _metadata?: Record<string, unknown>, name?: string): void {
    guarded("langchain retriever start", () => {
      const parent = this.parentContext(parentRunId);
      const base = retrieveStage<unknown[]>({ query, retriever: name ?? retriever?.id?.at(-1) });
      // Documents are recorded even without ids (empty chunk id), see langchain-documents.ts.
      const definition: StageDefinition<unknown[]> = {
        ...base,
        recordResult: (recorder, documents, configuration) =>
          recordChunks(recorder, toRankedChunks(documents), { openInference: OpenInference.retrievalDocumentsPrefix, ragscope: Ragscope.documentsPrefix, count: Ragscope.retrievalDocumentCount, unrecorded: Ragscope.retrievalUnrecordedDocumentCount }, configuration.captureText, documents.length),
      };
      this.open(runId, startStageSpan(definition, parent), parent);
    });
  }

  override handleRetrieverEnd(documents: unknown[], runId: string): void {
    this.succeed(runId, documents);
  }

  override handleRetrieverError(error: unknown, runId: string): void {
    this.fail(runId, error);
  }

  override handleChatModelStart(
    llm: Serialized,
    messages: BaseMessage[][],
    runId: string,
    parentRunId?: string,
    extraParams?: Record<string, unknown>,
    _tags?: string[],
    metadata?: Record<string, unknown>,
  ): void {
    this.startGeneration(llm, messagesText(messages[0] ?? []), runId, parentRunId, extraParams, metadata);
  }

  override handleLLMStart(
    llm: Serialized,
    prompts: string[],
    runId: string,
    parentRunId?: string,
    extraParams?: Record<string, unknown>,
    _tags?: string[],
    metadata?: Record<string, unknown>,
  ): void {
    this.startGeneration(llm, prompts[0], runId, parentRunId, extraParams, metadata);
  }

  override handleLLMNewToken(_token: string, _index: unknown, runId: string): void {
    const run = this.runs.get(runId);
    if (run !== undefined && run.firstTokenAt === undefined) run.firstTokenAt = performance.now();
  }

  override handleLLMEnd(output: LLMResult, runId: string): void {
    const run = this.runs.get(runId);
    if (run === undefined) return;
    let generation: GenerationRecord | undefined;
    guarded("langchain llm end", () => {
      generation = toGeneration(output, run.firstTokenAt !== undefined ? run.firstTokenAt - run.startedAt : undefined);
    });
    this.succeed(runId, generation);
  }

  override handleLLMError(error: unknown, runId: string): void {
    this.fail(runId, error);
  }

  private startGeneration(
    llm: Serialized,
    prompt: string | undefined,
    runId: string,
    parentRunId: string | undefined,
    extraParams: Record<string, unknown> | undefined,
    metadata: Record<string, unknown> | undefined,
  ): void {
    guarded("langchain model start", () => {
      const parent = this.parentContext(parentRunId);
      const invocation = (extraParams?.invocation_params ?? {}) as Record<string, unknown>;
      // The model's name as the call names it; a class name (FakeListChatModel) is no model, and none is not recorded.
      const model = [invocation.model, invocation.model_name, invocation.modelName, metadata?.ls_model_name].find(
        (value): value is string => typeof value === "string" && value !== "",
      );
      const provider = typeof metadata?.ls_provider === "string" ? metadata.ls_provider : undefined;
      const definition = generateStage<GenerationRecord | undefined>(
        { model, ...(provider ? { provider } : {}), ...(prompt !== undefined ? { prompt } : {}) },
        (value) => value as GenerationRecord,
      );
      this.open(runId, startStageSpan(definition, parent), parent);
    });
  }

  private parentContext(parentRunId: string | undefined): Context {
    return (parentRunId !== undefined ? this.runs.get(parentRunId)?.context : undefined) ?? context.active();
  }

  private open(runId: string, stage: StageSpan<never> | StageSpan<unknown> | undefined, parent: Context, toValue?: (value: unknown) => unknown, maybeContext?: RunState["maybeContext"]): void {
    if (this.runs.size >= MAX_OPEN_RUNS) {
      const oldest = this.runs.keys().next().value;
      if (oldest !== undefined) this.runs.delete(oldest);
      reportInstrumentationError("langchain", `more than ${MAX_OPEN_RUNS} runs open; the oldest was forgotten`);
    }
    this.runs.set(runId, { context: stage?.context ?? parent, stage: (stage as StageSpan<never> | undefined) ?? null, startedAt: performance.now(), ...(toValue ? { toValue } : {}), ...(maybeContext ? { maybeContext } : {}) });
  }

  private succeed(runId: string, value: unknown): void {
    const run = this.runs.get(runId);
    this.runs.delete(runId);
    if (run?.stage == null) return;
    let recorded: unknown = value;
    guarded("langchain run end", () => {
      recorded = run.toValue ? run.toValue(value) : value;
    });
    run.stage.succeed(recorded as never);
  }

  private fail(runId: string, error: unknown): void {
    const run = this.runs.get(runId);
    this.runs.delete(runId);
    run?.stage?.fail(error);
  }
}

/** A chain's input or output value: LangChain wraps plain values as `{ input }` / `{ output }`. */
function unwrap(values: unknown, names: readonly string[]): unknown {
  if (typeof values !== "object" || values === null || Array.isArray(values)) return values;
  for (const name of names) if (name in values) return (values as Record<string, unknown>)[name];
  return undefined;
}

const LINKAGE_KEYS: readonly [keyof RequestOptions, string][] = [
  ["runId", Ragscope.runId],
  ["caseId", Ragscope.caseId],
  ["caseVersion", Ragscope.caseVersion],
  ["datasetId", Ragscope.datasetId],
  ["datasetVersion", Ragscope.datasetVersion],
  ["tenantId", Ragscope.tenantId],
  ["principalId", Ragscope.principalId],
  ["route", Ragscope.route],
  ["sessionId", OpenInference.sessionId],
  ["userId", OpenInference.userId],
];

function requestOptions(input: unknown, metadata: Record<string, unknown> | undefined): RequestOptions {
  const options: Record<string, unknown> = {};
  // RequestOptions.query is required for application callers; a chain whose
  // input is not text simply records no query (the recorder skips undefined).
  options.query = typeof input === "string" ? input : undefined;
  for (const [option, key] of LINKAGE_KEYS) if (typeof metadata?.[key] === "string") options[option] = metadata[key];
  const groups = metadata?.[Ragscope.principalGroups];
  if (Array.isArray(groups)) options.principalGroups = groups;
  return options as unknown as RequestOptions;
}

function messagesText(messages: readonly BaseMessage[]): string | undefined {
  if (messages.length === 0) return undefined;
  return messages.map((message) => `${messageRole(message)}: ${contentText(message.content)}`).join("\n");
}

function messageRole(message: BaseMessage): string {
  const withType = message as unknown as { getType?: () => string; _getType?: () => string; type?: string };
  return withType.getType?.() ?? withType._getType?.() ?? withType.type ?? "message";
}

function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content.map((part) => (typeof part === "string" ? part : typeof part?.text === "string" ? part.text : "")).join("");
  }
  return "";
}

function toGeneration(output: LLMResult, timeToFirstTokenMs: number | undefined): GenerationRecord | undefined {
  const first = output.generations?.[0]?.[0] as { text?: unknown; message?: { usage_metadata?: Record<string, unknown>; content?: unknown } } | undefined;
  if (first === undefined) return undefined;
  const text = typeof first.text === "string" && first.text !== "" ? first.text : contentText(first.message?.content);
  const usage = first.message?.usage_metadata;
  const tokenUsage = (output.llmOutput?.tokenUsage ?? output.llmOutput?.estimatedTokenUsage) as Record<string, unknown> | undefined;
  const count = (value: unknown) => (typeof value === "number" && Number.isFinite(value) ? value : undefined);
  return {
    text,
    inputTokens: count(usage?.input_tokens) ?? count(tokenUsage?.promptTokens),
    outputTokens: count(usage?.output_tokens) ?? count(tokenUsage?.completionTokens),
    ...(timeToFirstTokenMs !== undefined ? { timeToFirstTokenMs } : {}),
  };
}
