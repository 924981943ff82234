/**
 * What of a message list its reader (read-messages.ts) could not read, for
 * the Case Result's `malformed_attributes` (kind `unreadable_value`):
 * - GenAI's `gen_ai.input.messages` / `gen_ai.output.messages`
 *   (`[{ role, parts: [{ type: "text", content }] }]`, or a message's
 *   `content` text): a value that is no list (no message is read), an item
 *   that is no message object (its role and text not read), a message with
 *   neither a `parts` list nor `content` text, a part that is no object, a
 *   text part whose `content` is no text (the message's text not read);
 * - OpenLLMetry's flat `gen_ai.completion.N.*`: a content that is no text (a
 *   list, an object), and an index missing below the highest (the list is not
 *   read: unread-index-gaps.ts).
 * A part of another type (a tool call), or a flat message without content, is
 * no text, which it is: nothing is said about it. When the unreadable message
 * is the one the query or the answer would be taken from (lastMessage), that
 * value is not available, and its note says so; an unreadable message before
 * it changes nothing.
 */
import type { Attributes } from "../00-otlp/span-record.js";
import { flattenedIndexes, readString } from "./attribute-readers.js";
import type { MalformedAttribute } from "./find-malformed-json.js";
import { describeValue } from "./explain-unread-value.js";
import { parsedJsonValue } from "./parsed-json-value.js";
import type { ChosenMessage } from "./read-messages.js";
import { unreadIndexGaps } from "./unread-index-gaps.js";

/** The value taken from the list: the last user message's text as the query, the last message's as the answer. */
export type MessageField = "query" | "answer";

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

const LOST: Record<MessageField, string> = {
  query: "it may be the last user message, the query, so the query is not available (no earlier message is taken in its place)",
  answer: "it may be the last message, the answer, so the answer is not available (no earlier message is taken in its place)",
};

/** The notes, the one (or last one) of the message that stood in the field's way saying what that cost. */
function withConsequence(notes: { index: number; note: MalformedAttribute }[], chosen: ChosenMessage, field: MessageField): MalformedAttribute[] {
  const position = notes.findLastIndex((item) => item.index === chosen.unreadIndex);
  return notes.map((item, index) => (index === position ? { ...item.note, error: `${item.note.error}; ${LOST[field]}` } : item.note));
}

/**
 * @param chosen what lastMessage found in the same list for `field`
 */
export function unreadMessages(attributes: Attributes, key: string, chosen: ChosenMessage, field: MessageField): MalformedAttribute[] {
  const value = parsedJsonValue(attributes, key);
  if (value === undefined) return [];
  if (!Array.isArray(value)) return [{ attribute: key, error: `is ${describeValue(value)}, not a list of messages ([{"role", "parts"}]): none of its messages is read, so the ${field} is not available` }];
  const notes: { index: number; note: MalformedAttribute }[] = [];
  const add = (index: number, error: string) => notes.push({ index, note: { attribute: key, error } });
  value.forEach((message, index) => {
    if (!isObject(message)) {
      add(index, `[${index}] is ${describeValue(message)}, not a message object ({"role", "parts"}): its role and text are not read`);
      return;
    }
    if (!Array.isArray(message.parts)) {
      if (typeof message.content !== "string") add(index, `[${index}] has neither a "parts" list nor a "content" text (${describeValue(message)}): its text is not read`);
      return;
    }
    message.parts.forEach((part, partIndex) => {
      if (!isObject(part)) {
        add(index, `[${index}].parts[${partIndex}] is ${describeValue(part)}, not a part object ({"type", "content"}): its text is not read`);
      } else if (part.type === "text" && typeof part.content !== "string") {
        add(index, `[${index}].parts[${partIndex}] is a text part whose "content" is ${describeValue(part.content)} (${describeValue(part)}), not text: its text is not read`);
      }
    });
  });
  return withConsequence(notes, chosen, field);
}

/**
 * @param prefix e.g. `gen_ai.completion`
 * @param chosen what lastMessage found in readFlatMessages' list for `field`
 * @param droppedBySdk the span's attributes its SDK dropped (attributesDroppedBySdk), for the gap's note
 */
export function unreadFlatMessages(attributes: Attributes, prefix: string, chosen: ChosenMessage, field: MessageField, droppedBySdk: number): MalformedAttribute[] {
  const gaps = unreadIndexGaps(attributes, [prefix], `the ${field} is not available (the last message recorded may be among those missing)`, droppedBySdk);
  const notes: { index: number; note: MalformedAttribute }[] = [];
  for (const index of flattenedIndexes(attributes, prefix)) {
    const key = `${prefix}.${index}.content`;
    const content = attributes[key];
    if (content !== undefined && content !== null && readString(attributes, key) === null) {
      notes.push({ index, note: { attribute: key, error: `is ${describeValue(content)}, not text: the message's text is not read` } });
    }
  }
  return [...gaps, ...withConsequence(notes, chosen, field)];
}
