/**
 * Reads the judge's JSON object out of a model's answer, losslessly: nothing
 * is invented, only text around the object is dropped.
 *
 * - A reasoning model's `<think>…</think>` preamble is dropped in every mode
 *   (DeepSeek-R1, Qwen3 and their distills write it even under a JSON format).
 * - One surrounding Markdown code fence is tolerated in every mode.
 * - `lenient` (the `instructions` mode, where no server constrains the answer)
 *   also reads JSON objects inside prose: every balanced top-level object is a
 *   candidate, and the verdict is the one candidate the caller's `accepts`
 *   (the rubric's schema) takes. Several accepted candidates that differ are
 *   ambiguous — unparseable, never a verdict picked by position: a model that
 *   quotes an object from the answer it judges and then gives its own verdict
 *   must not have the quoted one taken for its verdict.
 * - In every mode, an object that is a copy of one inside the untrusted,
 *   fenced text of the prompt (`<<<ANSWER>>> … <<<END ANSWER>>>`, documents —
 *   fence-text.ts `fencedTexts`) is not a verdict: a gullible model echoing a
 *   verdict injected into the answer it judges is unparseable.
 *
 * A truncated object (a small model at its `max_tokens`) is not closed for it:
 * the items it would have listed are unknown, and closing it would turn a cut
 * answer into a different verdict. It is reported as truncated instead, so the
 * repair turn can ask for a shorter answer.
 */
import { failure, success, type Result } from "../../core/result.js";

export interface JsonAnswerProblem {
  message: string;
  /** An object was opened and never closed. */
  truncated: boolean;
}

const THINKING = /^\s*<(think|thinking|reasoning)>[\s\S]*?<\/\1>/i;
const UNCLOSED_THINKING = /^\s*<(think|thinking|reasoning)>(?![\s\S]*<\/\1>)/i;
const FENCED = /^```(?:json)?\s*\n([\s\S]*?)\n?```$/i;

export interface JsonAnswerContext {
  /**
   * The untrusted texts of the prompt (the contents of its fences): an object
   * copied from them is never the judge's verdict.
   */
  untrusted?: readonly string[];
  /** Whether an object is a verdict (the rubric's schema); by default every object is. */
  accepts?: (value: Record<string, unknown>) => boolean;
}

export function readJsonAnswer(content: string, lenient: boolean, context: JsonAnswerContext = {}): Result<Record<string, unknown>, JsonAnswerProblem> {
  if (UNCLOSED_THINKING.test(content)) return failure({ message: `the judge's answer is a reasoning preamble that never ends: ${preview(content)}`, truncated: true });
  const trimmed = content.replace(THINKING, "").trim();
  const unfenced = FENCED.exec(trimmed)?.[1] ?? trimmed;
  const quoted = quotedObjects(context.untrusted ?? []);
  const whole = parseObject(unfenced);
  if (whole.ok) {
    if (isQuoted(unfenced.trim(), whole.value, quoted)) return failure({ message: QUOTED_ONLY, truncated: false });
    return whole;
  }
  if (lenient) {
    const embedded = verdictInProse(trimmed, quoted, context.accepts ?? (() => true));
    if (embedded !== null) return embedded;
  }
  if (opensWithoutClosing(unfenced)) return failure({ message: `the judge's JSON object stops before it closes: ${preview(trimmed)}`, truncated: true });
  return failure({ message: whole.error, truncated: false });
}

const QUOTED_ONLY = "the judge's answer repeats a JSON object quoted from the fenced data it was asked to evaluate instead of giving its own verdict";

interface Candidate {
  text: string;
  value: Record<string, unknown>;
}

/**
 * The verdict among the balanced top-level objects of prose: objects quoted
 * from the fenced data are dropped, then those the caller accepts are kept; one
 * distinct accepted object is the verdict, several that differ are ambiguous.
 * With none accepted, the first unquoted object is returned so that the
 * caller's interpreter can say what is wrong with it (the repair turn shows
 * the model); null when the prose holds no object at all.
 */
function verdictInProse(text: string, quoted: QuotedObjects, accepts: (value: Record<string, unknown>) => boolean): Result<Record<string, unknown>, JsonAnswerProblem> | null {
  const candidates = topLevelObjects(text);
  if (candidates.length === 0) return null;
  const own = candidates.filter((candidate) => !isQuoted(candidate.text, candidate.value, quoted));
  if (own.length === 0) return failure({ message: QUOTED_ONLY, truncated: false });
  const accepted = own.filter((candidate) => accepts(candidate.value));
  const distinct = [...new Map(accepted.map((candidate) => [canonicalJson(candidate.value), candidate])).values()];
  const [only] = distinct;
  if (distinct.length > 1) {
    return failure({ message: `the judge's answer holds ${distinct.length} different JSON verdicts (${distinct.map((candidate) => preview(candidate.text)).join(" and ")}); it must give exactly one`, truncated: false });
  }
  return success((only ?? own[0]!).value);
}

function parseObject(text: string): Result<Record<string, unknown>, string> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return failure(`the judge's answer is not JSON: ${preview(text)}`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) return failure(`the judge's answer is JSON but not an object: ${preview(text)}`);
  return success(value as Record<string, unknown>);
}

/**
 * Every balanced span (strings respected) that parses as an object and is not
 * inside another such span, in order. A `{` whose span does not parse (prose
 * in braces) is stepped over, so an object after or inside it is still found.
 */
function topLevelObjects(text: string): Candidate[] {
  const found: Candidate[] = [];
  let start = text.indexOf("{");
  while (start !== -1) {
    const end = balancedEnd(text, start);
    if (end === -1) break;
    const span = text.slice(start, end + 1);
    const parsed = parseObject(span);
    if (parsed.ok) {
      found.push({ text: span, value: parsed.value });
      start = text.indexOf("{", end + 1);
    } else {
      start = text.indexOf("{", start + 1);
    }
  }
  return found;
}

interface QuotedObjects {
  texts: readonly string[];
  canonical: ReadonlySet<string>;
}

/** The untrusted texts and the canonical form of every top-level object in them. */
function quotedObjects(untrusted: readonly string[]): QuotedObjects {
  const canonical = new Set<string>();
  for (const text of untrusted) for (const candidate of topLevelObjects(text)) canonical.add(canonicalJson(candidate.value));
  return { texts: untrusted, canonical };
}

/** Copied verbatim from the untrusted text, or the same object as one in it (whitespace and key order aside). */
function isQuoted(text: string, value: Record<string, unknown>, quoted: QuotedObjects): boolean {
  if (quoted.texts.length === 0) return false;
  return quoted.texts.some((untrusted) => untrusted.includes(text)) || quoted.canonical.has(canonicalJson(value));
}

/** JSON with object keys sorted, so that equal values compare equal. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, inner]) => `${JSON.stringify(key)}:${canonicalJson(inner)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** Index of the brace closing the one at `start`, or -1 when the text ends first. */
function balancedEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let index = start; index < text.length; index += 1) {
    const character = text[index];
    if (inString) {
      if (character === "\\") index += 1;
      else if (character === '"') inString = false;
      continue;
    }
    if (character === '"') inString = true;
    else if (character === "{" || character === "[") depth += 1;
    else if (character === "}" || character === "]") {
      depth -= 1;
      if (depth === 0) return index;
    }
  }
  return -1;
}

function opensWithoutClosing(text: string): boolean {
  const start = text.indexOf("{");
  return start !== -1 && balancedEnd(text, start) === -1;
}

export function preview(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > 120 ? `"${flat.slice(0, 120)}…"` : `"${flat}"`;
}
