/**
 * Message text from the GenAI conventions' message JSON — `[{ role, parts:
 * [{ type: "text", content }] }]` (v1.37+) — and from the deprecated flat
 * attributes `gen_ai.prompt.N.{role,content}` / `gen_ai.completion.N.content`
 * that OpenLLMetry still writes.
 *
 * A message is never left out of its list: one that cannot be read (an item
 * that is no message object, a text part whose content is no text) keeps its
 * place with its text null, so that the message a field is taken from is the
 * one recorded there, not the one before it (lastMessage). What could not be
 * read is named on the Case Result by unread-messages.ts.
 */
import type { Attributes } from "../00-otlp/span-record.js";
import { flattenedIndexes, indexGaps, readJsonArray, readString } from "./attribute-readers.js";

export interface Message {
  /** Its place in the recorded list (the N of a flat attribute). */
  index: number;
  /** Its role; null when it names none. */
  role: string | null;
  /** False for an item that is no message object: which role it had is not known. */
  roleKnown: boolean;
  /** Its text; "" when it holds none (a tool call); null when text it holds could not be read. */
  text: string | null;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * @returns the list's messages in order, an unreadable one with its text null; null when the attribute is absent or
 *   is no JSON list
 */
export function readStructuredMessages(attributes: Attributes, key: string): Message[] | null {
  const list = readJsonArray(attributes, key);
  if (list === null) return null;
  return list.map((item, index): Message => {
    if (!isObject(item)) return { index, role: null, roleKnown: false, text: null };
    return { index, role: typeof item.role === "string" ? item.role : null, roleKnown: true, text: messageText(item) };
  });
}

/** The text parts joined (the message's `content` text when they give none); null when a part that may hold text cannot be read. */
function messageText(message: Record<string, unknown>): string | null {
  const fallback = typeof message.content === "string" ? message.content : null;
  if (!Array.isArray(message.parts)) return fallback;
  let text = "";
  for (const part of message.parts) {
    // A part that is no object may have been text; a part of another type (a tool call) is no text, rightly.
    if (!isObject(part)) return null;
    if (part.type !== "text") continue;
    if (typeof part.content !== "string") return null;
    text += part.content;
  }
  return text || (fallback ?? "");
}

/**
 * The flat messages in index order; null when there are none, or when an index is missing below the highest (a
 * span truncated at its attribute count limit: unread-index-gaps.ts names it), since which message is the last one
 * is then not known. A message whose content is there but no text (a list, an object) has its text null; one
 * without content that records a tool call has "" (no text, which it is). One without content and without a tool
 * call (its role only) has its text null: what it said was not recorded — OpenLLMetry sets the role before the
 * content, so an SDK at its attribute count limit keeps the one and drops the other, and it leaves out an empty
 * content — so it is not known to hold no text (unread-messages.ts names it).
 */
export function readFlatMessages(attributes: Attributes, prefix: string): Message[] | null {
  const indexes = flattenedIndexes(attributes, prefix);
  if (indexes.length === 0 || indexGaps(indexes).missing > 0) return null;
  return indexes.map((index) => {
    const content = attributes[`${prefix}.${index}.content`];
    const text = content === undefined || content === null ? (recordsToolCall(attributes, prefix, index) ? "" : null) : readString(attributes, `${prefix}.${index}.content`);
    return { index, role: readString(attributes, `${prefix}.${index}.role`), roleKnown: true, text };
  });
}

/** OpenLLMetry's tool call attributes under a flat message: `<prefix>.N.tool_calls.K.*`, the older `<prefix>.N.function_call.*`. */
const TOOL_CALL_PARTS = ["tool_calls", "function_call"] as const;

/** Whether flat message `index` records a tool call, a message that holds no text rightly. */
export function recordsToolCall(attributes: Attributes, prefix: string, index: number): boolean {
  const starts = TOOL_CALL_PARTS.map((part) => `${prefix}.${index}.${part}.`);
  return Object.keys(attributes).some((key) => starts.some((start) => key.startsWith(start)));
}

/** The message a field is taken from: its text, or the index of the unreadable message that stands in its way. */
export interface ChosenMessage {
  text: string | null;
  /** The message that could be the one sought but could not be read; null when none stood in the way. */
  unreadIndex: number | null;
}

/**
 * The last message with text and `role` (any role when null). Walking back from the end, a message that could be
 * that one but cannot be read — its text unreadable, its role `role` or not known — ends the search with no text:
 * the message before it is another message, and taking it would evaluate what the trace did not record as the query
 * or the answer. An unreadable message of another (known) role, or before the one found, changes nothing.
 */
export function lastMessage(messages: readonly Message[] | null, role: string | null): ChosenMessage {
  if (messages === null) return { text: null, unreadIndex: null };
  for (let position = messages.length - 1; position >= 0; position -= 1) {
    const message = messages[position]!;
    if (role !== null && message.roleKnown && message.role !== role) continue;
    if (message.text === null) return { text: null, unreadIndex: message.index };
    if (message.text !== "" && (role === null || message.role === role)) return { text: message.text, unreadIndex: null };
  }
  return { text: null, unreadIndex: null };
}
