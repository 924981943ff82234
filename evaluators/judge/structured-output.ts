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
 * mistaken for one that refuses structured output. A refused form is remembered
 * too and never asked again of that endpoint by the process: at most two
 * refused requests per endpoint and process, however many calls, attempts and
 * retries follow (concurrent first calls aside).
 */

export const STRUCTURED_OUTPUT_MODES = ["json_schema", "json_object", "instructions"] as const;
export type StructuredOutputMode = (typeof STRUCTURED_OUTPUT_MODES)[number];

/** `auto` negotiates; a fixed mode is used as is (no fallback). */
export type StructuredOutputSetting = "auto" | StructuredOutputMode;

/**
 * The modes to try, strongest first, for a setting, what the endpoint is known
 * to accept and the forms it already refused (never asked again; the last form,
 * plain instructions, is always left).
 */
export function modesToTry(setting: StructuredOutputSetting, known: StructuredOutputMode | undefined, refused: ReadonlySet<StructuredOutputMode> = new Set()): readonly StructuredOutputMode[] {
  if (setting !== "auto") return [setting];
  const start = known === undefined ? 0 : STRUCTURED_OUTPUT_MODES.indexOf(known);
  return STRUCTURED_OUTPUT_MODES.slice(start).filter((mode) => mode === "instructions" || !refused.has(mode));
}

/**
 * What each endpoint accepted. One instance is shared by every judge client of
 * the process (SHARED_STRUCTURED_OUTPUT_MEMORY) so that voting judges and the
 * pairwise comparer on one endpoint negotiate once; tests pass their own.
 */
export class StructuredOutputMemory {
  private readonly accepted = new Map<string, StructuredOutputMode>();
  private readonly refusedForms = new Map<string, Set<StructuredOutputMode>>();

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

  /** The forms the endpoint refused (never asked again by this process). */
  refused(baseUrl: string, model: string): ReadonlySet<StructuredOutputMode> {
    return this.refusedForms.get(StructuredOutputMemory.key(baseUrl, model)) ?? new Set();
  }

  /** Records a refusal of a form by an endpoint. */
  recordRefusal(baseUrl: string, model: string, mode: StructuredOutputMode): void {
    const key = StructuredOutputMemory.key(baseUrl, model);
    const forms = this.refusedForms.get(key) ?? new Set<StructuredOutputMode>();
    forms.add(mode);
    this.refusedForms.set(key, forms);
  }

  private readonly negotiations = new Map<string, Promise<void>>();

  /**
   * Waits while another call finds the form the endpoint takes, then, when the form is still not known, makes this
   * call the one that finds it: the function returned ends its turn. Calls started together each stepped down on
   * their own, one refused request per form each (four with two calls, up to 2 × the judge's concurrency), where the
   * documentation promises at most one per form. Null when the form is known by then.
   */
  async negotiate(baseUrl: string, model: string, signal?: AbortSignal): Promise<(() => void) | null> {
    const key = StructuredOutputMemory.key(baseUrl, model);
    let waited = false;
    for (let pending = this.negotiations.get(key); pending !== undefined; pending = this.negotiations.get(key)) {
      waited = true;
      await untilSettledOrAborted(pending, signal);
      if (signal?.aborted) return null;
    }
    // Found by the call waited for; or that call ended without finding it (a timeout, a server error): the waiting
    // calls then go on together, as before, rather than trying a failing endpoint one call at a time.
    if (this.accepted.has(key) || waited) return null;
    let end = () => {};
    const turn = new Promise<void>((resolve) => (end = resolve));
    this.negotiations.set(key, turn);
    return () => {
      if (this.negotiations.get(key) === turn) this.negotiations.delete(key);
      end();
    };
  }

  /** Every endpoint and the mode it accepted, for `describe` lines and tests. */
  entries(): Array<{ endpoint: string; mode: StructuredOutputMode }> {
    return [...this.accepted].map(([key, mode]) => ({ endpoint: key.replace("\u0000", " model "), mode }));
  }
}

export const SHARED_STRUCTURED_OUTPUT_MEMORY = new StructuredOutputMemory();

/** Resolves when `pending` settles or `signal` aborts, whichever is first; the abort listener does not outlive it. */
async function untilSettledOrAborted(pending: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (signal === undefined) return pending;
  if (signal.aborted) return;
  let stop = () => {};
  const aborted = new Promise<void>((resolve) => {
    stop = () => signal.removeEventListener("abort", onAbort);
    const onAbort = () => resolve();
    signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    await Promise.race([pending, aborted]);
  } finally {
    stop();
  }
}
