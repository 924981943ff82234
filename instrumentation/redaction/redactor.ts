/**
 * Finds sensitive values in text and replaces them — with `[REDACTED:<name>]`,
 * or, in hash mode, with `[REDACTED:<name>:<hmac>]`, a keyed hash that keeps
 * equal values equal (the same e-mail in two traces) without revealing them.
 *
 * One pass: every pattern's candidates are found in the text, the overlaps
 * resolved by pattern priority, and the text rebuilt once, so a replacement is
 * never scanned again (a hex hash must not look like a number).
 *
 * The patterns read the text in its NFKC form, as the answer's sensitive-data
 * check does (core/sensitive-data.ts findSensitiveData): a phone number typed
 * in full-width or circled digits, or with no-break spaces, is the same number
 * to whoever reads it. A value hashes by its identity (sensitiveValueKey: a
 * phone's digits), not its spelling.
 *
 * The hash is an HMAC-SHA-256 under `hashKey`: a plain hash of a phone number
 * or an id number could be reversed by trying every possible value. Without a
 * key, a random one is drawn per process (hashes are then comparable within
 * one process only); set `hashKey` (RAGSCOPE_REDACTION_HASH_KEY) to compare
 * across processes.
 */
import { createHmac, randomBytes } from "node:crypto";
import type { AttributeValue, Attributes } from "@opentelemetry/api";
import { sensitiveCandidates, sensitiveValueKey, type SensitiveCandidate } from "../../core/sensitive-data.js";
import { defaultSensitivePatterns, type SensitivePattern } from "./sensitive-patterns.js";
import { isIdentityAttribute } from "./identity-attributes.js";
import { isStructuralAttribute } from "./structural-attributes.js";

export type RedactionMode = "replace" | "hash";

export interface RedactionOptions {
  /** Default "replace". */
  mode?: RedactionMode;
  /** Default `defaultSensitivePatterns`; earlier patterns win overlaps. */
  patterns?: readonly SensitivePattern[];
  /** HMAC key for hash mode; default a random key per process. */
  hashKey?: string;
  /**
   * Attribute keys never redacted (ids, ranks, scores). Default: `isStructuralAttribute`, and in "replace" mode also
   * the user, session and principal ids (identity-attributes.ts: a constant would merge every user into one).
   */
  keepAttribute?: (key: string) => boolean;
}

export interface Redactor {
  redact(text: string): string;
  /**
   * `attributes` with every string (and string array item) redacted, except
   * kept keys: a copy when anything was replaced, else `attributes` itself
   * (most spans carry nothing sensitive; neither is ever modified).
   */
  redactAttributes(attributes: Attributes): Attributes;
  /** How many values each pattern replaced so far (a text redacted again from memory is not counted twice). */
  counts(): Readonly<Record<string, number>>;
}

/**
 * The text in NFKC form, code point by code point, with the offsets in `text` each UTF-16 unit of it came from
 * (`startOf`) and ends at (`endOf`), so that a match maps back to the characters it came from.
 */
function foldedByCodePoint(text: string): { text: string; startOf: number[]; endOf: number[] } {
  let folded = "";
  const startOf: number[] = [];
  const endOf: number[] = [];
  let offset = 0;
  for (const codePoint of text) {
    const form = codePoint.normalize("NFKC");
    for (let unit = 0; unit < form.length; unit += 1) {
      startOf.push(offset);
      endOf.push(offset + codePoint.length);
    }
    folded += form;
    offset += codePoint.length;
  }
  return { text: folded, startOf, endOf };
}

const MEMO_MAX_ENTRIES = 512;
const MEMO_MAX_TEXT_LENGTH = 8_192;

export function createRedactor(options: RedactionOptions = {}): Redactor {
  const patterns = options.patterns ?? defaultSensitivePatterns;
  for (const { name, pattern } of patterns) {
    if (!pattern.global) throw new Error(`redaction pattern "${name}" needs the global flag (/…/g)`);
  }
  const mode = options.mode ?? "replace";
  if (mode !== "replace" && mode !== "hash") throw new Error(`redaction mode "${String(mode)}" is not supported; use "replace" or "hash"`);
  const hashKey = options.hashKey ?? randomBytes(32).toString("hex");
  const keepAttribute =
    options.keepAttribute ?? (mode === "replace" ? (key: string) => isStructuralAttribute(key) || isIdentityAttribute(key) : isStructuralAttribute);
  const counts: Record<string, number> = Object.fromEntries(patterns.map((pattern) => [pattern.name, 0]));

  const replacement = (priority: number, value: string): string => {
    const name = patterns[priority]!.name;
    counts[name] = (counts[name] ?? 0) + 1;
    if (mode === "replace") return `[REDACTED:${name}]`;
    // The value's identity, not its spelling (sensitive-data.ts sensitiveValueKey): "138 1234 5678" and
    // "+86 13812345678" are one phone number, so the caller's own number typed two ways hashes alike.
    const digest = createHmac("sha256", hashKey).update(sensitiveValueKey({ kind: name, text: value })).digest("hex").slice(0, 16);
    return `[REDACTED:${name}:${digest}]`;
  };

  // The same text comes back often (a chunk on the retrieve span and on both
  // rerank lists; popular chunks across requests): remember recent results.
  const recent = new Map<string, string>();
  const redact = (text: string): string => {
    if (text.length > MEMO_MAX_TEXT_LENGTH) return scan(text);
    const known = recent.get(text);
    if (known !== undefined) return known;
    const redacted = scan(text);
    if (recent.size >= MEMO_MAX_ENTRIES) recent.delete(recent.keys().next().value!);
    recent.set(text, redacted);
    return redacted;
  };

  const scan = (text: string): string => {
    // The patterns read the NFKC form, as the answer's check does. Most text is its own NFKC form; a text that is not
    // (Chinese with full-width punctuation) is folded code point by code point — a map back to its characters — only
    // when its NFKC form holds a candidate, so a text without one costs a normalisation and a scan.
    const normalized = text.normalize("NFKC");
    if (normalized === text) return replaced(text, text, sensitiveCandidates(text, patterns), null);
    if (sensitiveCandidates(normalized, patterns).length === 0) return text;
    const folded = foldedByCodePoint(text);
    return replaced(text, folded.text, sensitiveCandidates(folded.text, patterns), folded);
  };

  /** `text` with each candidate found in `source` (its fold, or itself) replaced, the whole characters it came from. */
  const replaced = (text: string, source: string, candidates: readonly SensitiveCandidate[], folded: { startOf: number[]; endOf: number[] } | null): string => {
    if (candidates.length === 0) return text;
    let output = "";
    let position = 0;
    for (const { start, end, priority } of candidates) {
      const from = folded === null ? start : folded.startOf[start]!;
      const to = folded === null ? end : folded.endOf[end - 1]!;
      output += text.slice(position, from) + replacement(priority, source.slice(start, end));
      position = to;
    }
    return output + text.slice(position);
  };

  /** The value with its strings redacted; the same value when nothing was replaced. */
  const redactValue = (value: AttributeValue | undefined): AttributeValue | undefined => {
    if (typeof value === "string") return redact(value);
    if (!Array.isArray(value)) return value;
    let copy: (string | number | boolean | null | undefined)[] | undefined;
    for (let index = 0; index < value.length; index += 1) {
      const item = value[index];
      if (typeof item !== "string") continue;
      const redacted = redact(item);
      if (redacted === item) continue;
      copy ??= [...value];
      copy[index] = redacted;
    }
    return (copy as AttributeValue | undefined) ?? value;
  };

  return {
    redact,
    redactAttributes(attributes) {
      let copy: Attributes | undefined;
      // Object.keys rather than for…in, which checks every key of a large (hash-table) attributes object again.
      const keys = Object.keys(attributes);
      for (let index = 0; index < keys.length; index += 1) {
        const key = keys[index]!;
        if (keepAttribute(key)) continue;
        const value = attributes[key];
        const redacted = redactValue(value);
        if (redacted === value) continue;
        copy ??= { ...attributes };
        copy[key] = redacted;
      }
      return copy ?? attributes;
    },
    counts: () => ({ ...counts }),
  };
}
