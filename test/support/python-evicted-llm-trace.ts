/**
 * A RAG request as OpenLLMetry's Python instrumentations record it, as an OTLP/JSON body, with its answer's LLM call
 * as the OTel Python SDK sends it past its attribute count limit: the SDK evicts the OLDEST attribute to make room
 * (opentelemetry-sdk `BoundedAttributes`, `popitem(last=False)`), so the call keeps the attributes set last, and the
 * ones the instrumentation set first go first — `llm.request.type`, passed when it starts the span.
 *
 * No Python SDK runs in the tests: each span's attributes are listed in the order the instrumentation sets them
 * (traceloop/openllmetry, `opentelemetry-instrumentation-openai` before its move to `gen_ai.operation.name`:
 * `start_span(…, attributes={llm.request.type})`, then `_set_request_attributes` and the prompts, then
 * `_set_response_attributes` — response model, id, `llm.usage.total_tokens`, output and input tokens — then the
 * completions), the oldest `evicted` removed and counted in `droppedAttributesCount`, under a resource whose
 * `telemetry.sdk.language` is `python`, as Python's default resource says.
 *
 * The request: the workflow (the root, its answer in `traceloop.entity.output`), a query rewrite that kept all its
 * attributes (40 input + 8 output = 48 tokens), and the answer's call (900 input + 60 output = 960 tokens).
 */

export type AttributeValue = string | number | boolean | readonly string[];
export type OrderedAttribute = readonly [key: string, value: AttributeValue];

export interface PythonSpan {
  name: string;
  /** In the order the instrumentation set them. */
  attributes: readonly OrderedAttribute[];
  /** How many of the first attributes the SDK evicted; default none. */
  evicted?: number;
  /** The index of its parent among the trace's spans; default the root (0). */
  parent?: number;
  /** OTLP span kind; default INTERNAL (1) for the root, CLIENT (3) for the others. */
  kind?: number;
  /**
   * When it ran, in ms after the root started (the root runs 0 → 1000 ms); by default the span at index i runs from
   * i × 10 ms to 1000 − i × 10 ms, in time inside the ones listed before it. Calls that ran one after the other, as a
   * request's rewrite and answer do, say so here: which one ended last decides which gave the answer.
   */
  runs?: { fromMs: number; toMs: number };
}

export const WORKFLOW_SPAN: PythonSpan = {
  name: "leave_policy_rag.workflow",
  attributes: [
    ["traceloop.span.kind", "workflow"],
    ["traceloop.entity.name", "leave_policy_rag"],
    ["traceloop.entity.input", JSON.stringify({ args: ["Can unused annual leave be carried over?"], kwargs: {} })],
    ["traceloop.entity.output", JSON.stringify("Up to 5 days carry over.")],
  ],
};

/** A typed chat call that lost nothing: 40 + 8 tokens. */
export const REWRITE_CALL: PythonSpan = {
  name: "openai.chat",
  attributes: [
    ["llm.request.type", "chat"],
    ["gen_ai.system", "openai"],
    ["gen_ai.request.model", "gpt-4o-mini"],
    ["gen_ai.prompt.0.role", "user"],
    ["gen_ai.prompt.0.content", "Rewrite as a search query: Can unused annual leave be carried over?"],
    ["gen_ai.response.model", "gpt-4o-mini-2024-07-18"],
    ["llm.usage.total_tokens", 48],
    ["gen_ai.usage.output_tokens", 8],
    ["gen_ai.usage.input_tokens", 40],
    ["gen_ai.completion.0.finish_reason", "stop"],
    ["gen_ai.completion.0.role", "assistant"],
    ["gen_ai.completion.0.content", "annual leave carry over"],
  ],
};

/** The answer's call, in the order the openai instrumentation sets its attributes: 900 + 60 tokens. */
export function answerCall(name: string, evicted: number, options: { completions?: boolean } = {}): PythonSpan {
  const completions: OrderedAttribute[] = [
    ["gen_ai.completion.0.finish_reason", "stop"],
    ["gen_ai.completion.0.role", "assistant"],
    ["gen_ai.completion.0.content", "Up to 5 days carry over."],
  ];
  return {
    name,
    evicted,
    attributes: [
      ["llm.request.type", "chat"],
      ["gen_ai.system", "openai"],
      ["gen_ai.request.model", "gpt-4o-mini"],
      ["llm.headers", "None"],
      ["llm.is_streaming", false],
      ["gen_ai.openai.api_base", "https://api.openai.com/v1/"],
      ["gen_ai.prompt.0.role", "system"],
      ["gen_ai.prompt.0.content", "Answer from the context: Employees may carry over up to 5 days of unused annual leave."],
      ["gen_ai.prompt.1.role", "user"],
      ["gen_ai.prompt.1.content", "Can unused annual leave be carried over?"],
      ["gen_ai.response.model", "gpt-4o-mini-2024-07-18"],
      ["gen_ai.response.id", "chatcmpl-7f3a"],
      ["llm.usage.total_tokens", 960],
      ["gen_ai.usage.output_tokens", 60],
      ["gen_ai.usage.input_tokens", 900],
      ...(options.completions === false ? [] : completions),
    ],
  };
}

/**
 * When a rewrite and then the answer's call run, one after the other, as a request runs them (`runs`): the answer's
 * call, ending last, gives the answer.
 */
export const RUNS_IN_TURN = { rewrite: { fromMs: 10, toMs: 300 }, answer: { fromMs: 320, toMs: 980 } } as const;

/** Where the answer's call keeps only what its response set (the request type, its request and prompts evicted). */
export const EVICTED_UP_TO_RESPONSE = 10;

function otlpValue(value: AttributeValue): Record<string, unknown> {
  if (Array.isArray(value)) return { arrayValue: { values: value.map((item: string) => ({ stringValue: item })) } };
  if (typeof value === "boolean") return { boolValue: value };
  if (typeof value === "number") return Number.isInteger(value) ? { intValue: String(value) } : { doubleValue: value };
  return { stringValue: value };
}

/**
 * One trace, OTLP/JSON: the first span the root, the others its children (or `parent`'s), each starting after and
 * ending before the ones listed before it (so a span lies within its parent's time), unless it says when it `runs`.
 * @param language the resource's telemetry.sdk.language; null for a resource that does not say
 * @param startMs when the root starts (serve takes spans up to a little in the future; the replay any time)
 */
export function pythonSdkTrace(traceId: string, spans: readonly PythonSpan[], options: { language?: string | null; startMs?: number } = {}): string {
  const language = options.language === undefined ? "python" : options.language;
  const start = BigInt(options.startMs ?? Date.UTC(2026, 6, 8, 9, 0, 0)) * 1_000_000n;
  const spanId = (index: number) => pythonSpanId(traceId, index);
  const otlpSpans = spans.map((span, index) => {
    const kept = span.attributes.slice(span.evicted ?? 0);
    return {
      traceId,
      spanId: spanId(index),
      parentSpanId: index === 0 ? "" : spanId(span.parent ?? 0),
      name: span.name,
      kind: span.kind ?? (index === 0 ? 1 : 3),
      startTimeUnixNano: String(start + (span.runs === undefined ? BigInt(index) * 10_000_000n : BigInt(span.runs.fromMs) * 1_000_000n)),
      endTimeUnixNano: String(start + (span.runs === undefined ? 1_000_000_000n - BigInt(index) * 10_000_000n : BigInt(span.runs.toMs) * 1_000_000n)),
      attributes: kept.map(([key, value]) => ({ key, value: otlpValue(value) })),
      droppedAttributesCount: span.attributes.length - kept.length,
      status: {},
    };
  });
  const resource = [{ key: "service.name", value: { stringValue: "leave-policy-assistant" } }, ...(language === null ? [] : [{ key: "telemetry.sdk.language", value: { stringValue: language } }])];
  return JSON.stringify({ resourceSpans: [{ resource: { attributes: resource }, scopeSpans: [{ scope: { name: "opentelemetry.instrumentation.openai.v1" }, spans: otlpSpans }] }] });
}

/** The span id pythonSdkTrace gives the span at `index`. */
export const pythonSpanId = (traceId: string, index: number) => `${traceId.slice(0, 14)}${String(index + 1).padStart(2, "0")}`;
