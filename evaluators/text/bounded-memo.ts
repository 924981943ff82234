/**
 * Remembers the results of a pure function of a text, within a budget of
 * characters (of the remembered texts and what they map to) and of entries,
 * forgetting the oldest first. The entry bound keeps many short, never
 * repeated texts (unique queries and answers) from growing a large map that
 * the garbage collector walks for nothing.
 *
 * Why: the evaluators of one trace normalise and tokenise the same texts many
 * times — a chunk on the retrieve span, on both rerank lists and in the
 * packed context, read by several evaluators and, in findRepetitions and the
 * support checks, once per pair — and popular chunks come back across traces.
 * Normalising was the largest cost of evaluating a trace after the injection
 * patterns (test/bench/embedded-serve.bench.ts profile). A remembered result
 * is exactly what the function returned for that text, so nothing changes but
 * the time.
 */
export class BoundedMemo<Result> {
  private readonly entries = new Map<string, { result: Result; characters: number }>();
  private characters = 0;

  /**
   * @param maxCharacters budget over all entries (a two-byte string holds two bytes a character)
   * @param maxTextLength longer texts are computed each time, never remembered
   * @param sizeOf characters a result holds
   * @param maxEntries entries at most
   */
  constructor(
    private readonly maxCharacters: number,
    private readonly maxTextLength: number,
    private readonly sizeOf: (result: Result) => number,
    private readonly maxEntries = 4_096,
  ) {}

  get(text: string, compute: (text: string) => Result): Result {
    if (text.length > this.maxTextLength) return compute(text);
    const known = this.entries.get(text);
    if (known !== undefined) return known.result;
    const result = compute(text);
    const characters = text.length + this.sizeOf(result);
    if (characters > this.maxCharacters) return result;
    while (this.characters + characters > this.maxCharacters || this.entries.size >= this.maxEntries) {
      const [oldestText, oldest] = this.entries.entries().next().value!;
      this.entries.delete(oldestText);
      this.characters -= oldest.characters;
    }
    this.entries.set(text, { result, characters });
    this.characters += characters;
    return result;
  }
}
