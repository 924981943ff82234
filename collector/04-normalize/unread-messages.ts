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
 *   list, an object), a message without content that records no tool call (its
 *   role only: its text was not recorded, read-messages.ts), and an index
 *   missing below the highest (the list is not read: unread-index-gaps.ts).
 * A part of another type (a tool call), or a flat message that records a tool
 * call and no content, is no text, which it is: nothing is said about it. When the unreadable message
 * is the one the query or the answer would be taken from (lastMessage), that
 * value is not available, and its note says so; an unreadable message before
 * it changes nothing.
 */
import type { Attributes } from "../00-otlp/span-record.js";
import { flattenedIndexes, readString } from "./attribute-readers.js";
import type { MalformedAttribute } from "./find-malformed-json.js";
import { describeValue } from "./explain-unread-value.js";
import { parsedJsonValue } from "./parsed-json-value.js";
import { recordsToolCall, type ChosenMessage } from "./read-messages.js";
import { sdkLimitFact, unreadIndexGaps } from "./unread-index-gaps.js";
import { sdkLanguagePhrase, type SdkAttributeOrder } from "./sdk-attribute-order.js";

/** The value taken from the list: the last user message's text as the query, the last message's as the answer. */
export type MessageField = "query" | "answer";

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

const LOST: Record<MessageField, string> = {
  query: "it may be the last user message, the query, so the query is not available (no earlier message is taken in its place)",
  answer: "it may be the last message, the answer, so the answer is not available (no earlier message is taken in its place)",
};

/** A note on message `index`; `after`, a sentence said after what the note cost (a cause stated as a fact). */
interface MessageNote {
  index: number;
  note: MalformedAttribute;
  after?: string;
}

/** The notes, the one (or last one) of the message that stood in the field's way saying what that cost. */
function withConsequence(notes: MessageNote[], chosen: ChosenMessage, field: MessageField): MalformedAttribute[] {
  const position = notes.findLastIndex((item) => item.index === chosen.unreadIndex);
  return notes.map((item, index) => {
    const error = `${item.note.error}${index === position ? `; ${LOST[field]}` : ""}${item.after === undefined ? "" : `. ${item.after}`}`;
    return { ...item.note, error };
  });
}

/**
 * @param chosen what lastMessage found in the same list for `field`
 */
export function unreadMessages(attributes: Attributes, key: string, chosen: ChosenMessage, field: MessageField): MalformedAttribute[] {
  const value = parsedJsonValue(attributes, key);
  if (value === undefined) return [];
  if (!Array.isArray(value)) return [{ attribute: key, error: `is ${describeValue(value)}, not a list of messages ([{"role", "parts"}]): none of its messages is read, so the ${field} is not available` }];
  const notes: MessageNote[] = [];
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
export function unreadFlatMessages(attributes: Attributes, prefix: string, chosen: ChosenMessage, field: MessageField, droppedBySdk: number, order: SdkAttributeOrder): MalformedAttribute[] {
  const gaps = unreadIndexGaps(attributes, [prefix], `the ${field} is not available (the last message recorded may be among those missing)`, droppedBySdk);
  const notes: MessageNote[] = [];
  for (const index of flattenedIndexes(attributes, prefix)) {
    const key = `${prefix}.${index}.content`;
    const content = attributes[key];
    if (content !== undefined && content !== null && readString(attributes, key) === null) {
      notes.push({ index, note: { attribute: key, error: `is ${describeValue(content)}, not text: the message's text is not read` } });
    } else if ((content === undefined || content === null) && !recordsToolCall(attributes, prefix, index)) {
      notes.push({ index, note: { attribute: key, error: contentNotRecorded(attributes, prefix, index, droppedBySdk, order) }, ...(droppedBySdk > 0 ? { after: sdkLimitFact(droppedBySdk) } : {}) });
    }
  }
  return [...gaps, ...withConsequence(notes, chosen, field)];
}

/** Why a flat message carries no content and no tool call: its text was not recorded, and what that says. */
function contentNotRecorded(attributes: Attributes, prefix: string, index: number, droppedBySdk: number, order: SdkAttributeOrder): string {
  const start = `${prefix}.${index}.`;
  const carried = Object.keys(attributes).filter((key) => key.startsWith(start));
  const role = readString(attributes, `${start}role`);
  const beside = role !== null ? `${start}role ("${role.slice(0, 40)}")` : carried.slice(0, 3).join(", ");
  // OpenLLMetry sets a message's role, then its content: a span at its SDK's count limit that keeps the attributes set
  // first (the JS SDK) keeps the one and drops the other. One that evicts the oldest (Python's) drops the role first,
  // so there a role without content was not cut so; whose order it was is told only for the JS SDK.
  const why =
    droppedBySdk === 0
      ? "the instrumentation wrote none (OpenLLMetry leaves out an empty content), or it was dropped"
      : order.keepsFirst
        ? "the role was set before the content, and the span's SDK dropped the attributes set last"
        : `the span's SDK dropped attributes, and ${sdkLanguagePhrase(order)}: an SDK that keeps the attributes set first (the JS SDK) drops the content set after the role, one that evicts the oldest (Python's) would have dropped the role first, and the instrumentation may have written none`;
  return `is absent beside ${beside}, and the message records no tool call: its text was not recorded (${why}), so whether it held text is not known and it is not read as none`;
}
