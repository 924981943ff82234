/**
 * Structured output across OpenAI-compatible servers (issue 18). Servers differ
 * in what they accept for `response_format`: OpenAI, vLLM and llama.cpp's C++
 * `llama-server` take `json_schema`; the llama-cpp-python server answers it
 * with HTTP 500 and takes only `json_object` (with a `schema` field); some
 * gateways take neither. The judge therefore negotiates, strongest first:
 *
 *   json_schema   the server constrains the answer to the rubric's JSON Schema
 *   json_object   the server constrains it to JSON (and, where it reads the
 *                 `schema` field, to the schema); the prompt carries the schema
 *   instructions  no response_format: the prompt asks for the JSON object, the
 *                 answer is extracted from prose and validated, with one repair turn
 *
 * and remembers per endpoint (base URL and model) the form that worked, so only
 * the first call to an endpoint pays for the refusals. A form is remembered only
 * once the server accepted it (an HTTP 2xx), so an endpoint that is down is never
 * mistaken for one that refuses structured output.
 */

export const STRUCTURED_OUTPUT_MODES = ["json_schema", "json_object", "instructions"] as const;
export type StructuredOutputMode = (typeof STRUCTURED_OUTPUT_MODES)[number];

/** `auto` negotiates; a fixed mode is used as is (no fallback). */
export type StructuredOutputSetting = "auto" | StructuredOutputMode;

/** The modes to try, strongest first, for a setting and what the endpoint is known to accept. */
export function modesToTry(setting: StructuredOutputSetting, known: StructuredOutputMode | undefined): readonly StructuredOutputMode[] {
  if (setting !== "auto") return [setting];
  const start = known === undefined ? 0 : STRUCTURED_OUTPUT_MODES.indexOf(known);
  return STRUCTURED_OUTPUT_MODES.slice(start);
}

/**
 * What each endpoint accepted. One instance is shared by every judge client of
 * the process (SHARED_STRUCTURED_OUTPUT_MEMORY) so that voting judges and the
 * pairwise comparer on one endpoint negotiate once; tests pass their own.
 */
export class StructuredOutputMemory {
  private readonly accepted = new Map<string, StructuredOutputMode>();

  static key(baseUrl: string, model: string): string {
    return `${baseUrl.replace(/\/+$/, "")}\u0000${model}`;
  }

  get(baseUrl: string, model: string): StructuredOutputMode | undefined {
    return this.accepted.get(StructuredOutputMemory.key(baseUrl, model));
  }

  /** Records an accepted mode; never moves back to a stronger one than already known to be refused. */
  record(baseUrl: string, model: string, mode: StructuredOutputMode): void {
    const key = StructuredOutputMemory.key(baseUrl, model);
    const previous = this.accepted.get(key);
    if (previous !== undefined && STRUCTURED_OUTPUT_MODES.indexOf(previous) > STRUCTURED_OUTPUT_MODES.indexOf(mode)) return;
    this.accepted.set(key, mode);
  }

  /** Every endpoint and the mode it accepted, for `describe` lines and tests. */
  entries(): Array<{ endpoint: string; mode: StructuredOutputMode }> {
    return [...this.accepted].map(([key, mode]) => ({ endpoint: key.replace("\u0000", " model "), mode }));
  }
}

export const SHARED_STRUCTURED_OUTPUT_MEMORY = new StructuredOutputMemory();
