/**
 * A RAG request recorded to the OpenTelemetry GenAI conventions (`gen_ai.*`), its answer's LLM call as the OTel
 * Python SDK sends it past its attribute count limit: the SDK evicts the OLDEST attribute (opentelemetry-sdk
 * `BoundedAttributes`, `popitem(last=False)`), so the call loses first what the instrumentation set when it started
 * the span — `gen_ai.operation.name`. Built with pythonSdkTrace (python-evicted-llm-trace.ts): each span's attributes
 * in the order the instrumentation sets them, the oldest `evicted` removed and counted in `droppedAttributesCount`.
 *
 * The order is `opentelemetry-instrumentation-openai-v2`'s: `get_llm_request_attributes` passed to `start_span`
 * (`gen_ai.operation.name`, `gen_ai.system`, `gen_ai.request.model`, the request's parameters, `server.address`,
 * `server.port`), then `_set_response_attributes` (`gen_ai.response.model`, `gen_ai.response.finish_reasons`,
 * `gen_ai.response.id`, `gen_ai.usage.input_tokens`, `gen_ai.usage.output_tokens`). Its span name is
 * `{gen_ai.operation.name} {gen_ai.request.model}`; the message content goes to events, which no attribute limit
 * touches and the GenAI reader does not read.
 *
 * The request: its root an `invoke_workflow` span with the question and answer as messages, a query rewrite that kept
 * all its attributes (40 input + 8 output tokens), and the answer's call (900 + 60).
 */
import type { OrderedAttribute, PythonSpan } from "./python-evicted-llm-trace.js";

const message = (role: string, text: string) => JSON.stringify([{ role, parts: [{ type: "text", content: text }] }]);

export const GENAI_WORKFLOW_SPAN: PythonSpan = {
  name: "invoke_workflow leave_policy_rag",
  attributes: [
    ["gen_ai.operation.name", "invoke_workflow"],
    ["gen_ai.input.messages", message("user", "Can unused annual leave be carried over?")],
    ["gen_ai.output.messages", message("assistant", "Up to 5 days carry over.")],
  ],
};

/**
 * A chat call in openai-v2's order, with `evicted` of its first attributes removed.
 * @param usage null for a call that recorded none (a streamed call without `stream_options.include_usage`)
 */
export function genAiChatCall(
  name: string,
  evicted: number,
  usage: { input: number; output: number } | null,
  options: { operation?: string; model?: string; response?: readonly OrderedAttribute[] } = {},
): PythonSpan {
  const model = options.model ?? "gpt-4o-mini";
  return {
    name,
    evicted,
    attributes: [
      ["gen_ai.operation.name", options.operation ?? "chat"],
      ["gen_ai.system", "openai"],
      ["gen_ai.request.model", model],
      ["gen_ai.request.temperature", 0],
      ["server.address", "api.openai.com"],
      ["server.port", 443],
      ["gen_ai.response.model", `${model}-2024-07-18`],
      ["gen_ai.response.finish_reasons", ["stop"]],
      ["gen_ai.response.id", "chatcmpl-7f3a"],
      ...(usage === null
        ? []
        : ([
            ["gen_ai.usage.input_tokens", usage.input],
            ["gen_ai.usage.output_tokens", usage.output],
          ] as const)),
      ...(options.response ?? []),
    ],
  };
}

/** The rewrite: 40 + 8 tokens, nothing lost. */
export const GENAI_REWRITE_CALL: PythonSpan = genAiChatCall("chat gpt-4o-mini", 0, { input: 40, output: 8 });

/** The answer's call: 900 + 60 tokens. */
export const genAiAnswerCall = (name: string, evicted: number, options: { response?: readonly OrderedAttribute[]; withoutUsage?: boolean } = {}) =>
  genAiChatCall(name, evicted, options.withoutUsage === true ? null : { input: 900, output: 60 }, options);

/** Where a call keeps only what its response set (operation name, system, request model and parameters, server evicted). */
export const GENAI_EVICTED_UP_TO_RESPONSE = 6;

/** An embeddings call in openai-v2's order (`embeddings {model}`: response model and input tokens, no output). */
export const genAiEmbeddingsCall = (evicted: number): PythonSpan => ({
  name: "embeddings text-embedding-3-small",
  evicted,
  attributes: [
    ["gen_ai.operation.name", "embeddings"],
    ["gen_ai.system", "openai"],
    ["gen_ai.request.model", "text-embedding-3-small"],
    ["server.address", "api.openai.com"],
    ["server.port", 443],
    ["gen_ai.response.model", "text-embedding-3-small"],
    ["gen_ai.usage.input_tokens", 5],
  ],
});

/**
 * An `invoke_agent` span inside the request, as opentelemetry-util-genai's agent invocation writes it, carrying its
 * calls' usage (the rewrite's and the answer's: 940 + 68; the tests put those calls inside it with `parent`), that lost
 * its operation name (set first) to the SDK's limit.
 */
export const GENAI_EVICTED_AGENT_SPAN: PythonSpan = {
  name: "invoke_agent leave_agent",
  evicted: 1,
  attributes: [
    ["gen_ai.operation.name", "invoke_agent"],
    ["gen_ai.provider.name", "openai"],
    ["gen_ai.agent.name", "leave_agent"],
    ["gen_ai.usage.input_tokens", 940],
    ["gen_ai.usage.output_tokens", 68],
  ],
};
