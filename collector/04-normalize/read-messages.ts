/**
 * Message text from the GenAI conventions' message JSON — `[{ role, parts:
 * [{ type: "text", content }] }]` (v1.37+) — and from the deprecated flat
 * attributes `gen_ai.prompt.N.{role,content}` / `gen_ai.completion.N.content`
 * that OpenLLMetry still writes.
 */
import type { Attributes } from "../00-otlp/span-record.js";
import { flattenedIndexes, readJsonArray, readString } from "./attribute-readers.js";

interface Message {
  role: string | null;
  text: string;
}

export function readStructuredMessages(attributes: Attributes, key: string): Message[] | null {
  const list = readJsonArray(attributes, key);
  if (list === null) return null;
  return list.flatMap((item) => {
    if (typeof item !== "object" || item === null) return [];
    const message = item as { role?: unknown; parts?: unknown; content?: unknown };
    const parts = Array.isArray(message.parts) ? message.parts : [];
    const text = parts
      .map((part) => (typeof part === "object" && part !== null && (part as { type?: unknown }).type === "text" ? (part as { content?: unknown }).content : null))
      .filter((content): content is string => typeof content === "string")
      .join("");
    const fallback = typeof message.content === "string" ? message.content : "";
    return [{ role: typeof message.role === "string" ? message.role : null, text: text || fallback }];
  });
}

export function readFlatMessages(attributes: Attributes, prefix: string): Message[] | null {
  const indexes = flattenedIndexes(attributes, prefix);
  if (indexes.length === 0) return null;
  return indexes.flatMap((index) => {
    const text = readString(attributes, `${prefix}.${index}.content`);
    return text === null ? [] : [{ role: readString(attributes, `${prefix}.${index}.role`), text }];
  });
}

/** The text of the last message with `role` (any role when null), or null. */
export function lastMessageText(messages: Message[] | null, role: string | null): string | null {
  if (messages === null) return null;
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index]!;
    if ((role === null || message.role === role) && message.text !== "") return message.text;
  }
  return null;
}
