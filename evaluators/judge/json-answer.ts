/**
 * Reads the judge's JSON object out of a model's answer, losslessly: nothing
 * is invented, only text around the object is dropped.
 *
 * - A reasoning model's `<think>…</think>` preamble is dropped in every mode
 *   (DeepSeek-R1, Qwen3 and their distills write it even under a JSON format).
 * - One surrounding Markdown code fence is tolerated in every mode.
 * - `lenient` (the `instructions` mode, where no server constrains the answer)
 *   also takes the first complete JSON object inside prose.
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

export function readJsonAnswer(content: string, lenient: boolean): Result<Record<string, unknown>, JsonAnswerProblem> {
  if (UNCLOSED_THINKING.test(content)) return failure({ message: `the judge's answer is a reasoning preamble that never ends: ${preview(content)}`, truncated: true });
  const trimmed = content.replace(THINKING, "").trim();
  const unfenced = FENCED.exec(trimmed)?.[1] ?? trimmed;
  const whole = parseObject(unfenced);
  if (whole.ok) return whole;
  if (lenient) {
    const embedded = firstEmbeddedObject(trimmed);
    if (embedded !== null) return success(embedded);
  }
  if (opensWithoutClosing(unfenced)) return failure({ message: `the judge's JSON object stops before it closes: ${preview(trimmed)}`, truncated: true });
  return failure({ message: whole.error, truncated: false });
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

/** Each `{` in turn: the balanced span from it (strings respected) that parses as an object. */
function firstEmbeddedObject(text: string): Record<string, unknown> | null {
  for (let start = text.indexOf("{"); start !== -1; start = text.indexOf("{", start + 1)) {
    const end = balancedEnd(text, start);
    if (end === -1) return null;
    const parsed = parseObject(text.slice(start, end + 1));
    if (parsed.ok) return parsed.value;
  }
  return null;
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
