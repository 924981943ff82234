/**
 * The value a Traceloop entity span passed or returned, from its
 * `traceloop.entity.input` / `traceloop.entity.output` JSON, in the shapes
 * Traceloop's instrumentations write it:
 * - the JS SDK's workflow and task wrappers: an input
 *   `{"args": […], "kwargs": {…}}`, an output the returned value itself;
 * - the JS LangChain instrumentation: the step's value, a value that is not an
 *   object wrapped as `{"input": …}` / `{"output": …}`
 *   (test/golden/traces/openllmetry);
 * - the Python LangChain instrumentation (`opentelemetry-instrumentation-langchain`
 *   0.62): a chain step's `{"inputs": …, "tags": […], "metadata": {…}, "kwargs": {…}}`
 *   and `{"outputs": …, "kwargs": {…}}` — the callback's own arguments beside
 *   the value, LangChain objects in LangChain's serialised form (read by
 *   read-documents.ts) — and a retriever's `{"query": …, "tags", "metadata", "kwargs"}`
 *   and `{"documents": [{page_content, metadata}], "count": N}`
 *   (test/golden/traces/langchain-python-traceloop).
 * The JSON is the attribute value, already held to the receiver's byte limit
 * (RAGSCOPE_MAX_ATTRIBUTE_VALUE_BYTES); a value that does not parse is not
 * read (readJson gives null, find-malformed-json.ts lists it).
 */

/** The keys the Python LangChain callback writes beside the step's value, by direction. */
const PYTHON_CALLBACK_KEYS = {
  input: { value: "inputs", beside: new Set(["inputs", "tags", "metadata", "kwargs"]) },
  output: { value: "outputs", beside: new Set(["outputs", "kwargs"]) },
} as const;

/**
 * The step's own value from an entity's parsed input or output: unwrapped
 * once from the JS LangChain `{input}` / `{output}`, the JS SDK's single
 * argument, or the Python callback's `{inputs, tags, metadata, kwargs}` /
 * `{outputs, kwargs}` (only when every key is the callback's, so a step's own
 * object that happens to have an `outputs` field is not taken apart).
 */
export function entityValue(value: unknown, direction: "input" | "output"): unknown {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
  const entity = value as Record<string, unknown>;
  const keys = Object.keys(entity);
  if (keys.length === 1 && direction in entity) return entity[direction];
  if (direction === "input" && Array.isArray(entity.args) && entity.args.length === 1) return entity.args[0];
  const python = PYTHON_CALLBACK_KEYS[direction];
  if (python.value in entity && keys.every((key) => python.beside.has(key))) return entity[python.value];
  return value;
}

/** Text from an entity's input or output: a string, the first string argument, or a named field. */
export function entityText(value: unknown, fields: readonly string[]): string | null {
  if (typeof value === "string") return value;
  if (typeof value !== "object" || value === null) return null;
  const entity = value as { args?: unknown; kwargs?: unknown } & Record<string, unknown>;
  if (Array.isArray(entity.args)) {
    const first = entity.args.find((argument): argument is string => typeof argument === "string");
    if (first !== undefined) return first;
  }
  for (const source of [entity.kwargs, entity]) {
    if (typeof source !== "object" || source === null) continue;
    for (const field of fields) {
      const text = (source as Record<string, unknown>)[field];
      if (typeof text === "string") return text;
    }
  }
  return null;
}
