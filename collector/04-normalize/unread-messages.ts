/**
 * What of a GenAI message list (`gen_ai.input.messages`, `gen_ai.output.messages`:
 * `[{ role, parts: [{ type: "text", content }] }]`, or a message's `content`
 * text) its reader (read-messages.ts) could not read, for the Case Result's
 * `malformed_attributes` (kind `unreadable_value`): a value that is no list
 * (no message is read), an item that is no message object (left out), a
 * message with neither a `parts` list nor `content` text, a part that is no
 * object, a text part whose `content` is no text. The query or answer such a
 * message would give is then not available. A part of another type (a tool
 * call) is read as no text, which it is: nothing is said about it.
 */
import type { Attributes } from "../00-otlp/span-record.js";
import type { MalformedAttribute } from "./find-malformed-json.js";
import { describeValue } from "./explain-unread-value.js";
import { parsedJsonValue } from "./parsed-json-value.js";

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

export function unreadMessages(attributes: Attributes, key: string): MalformedAttribute[] {
  const value = parsedJsonValue(attributes, key);
  if (value === undefined) return [];
  if (!Array.isArray(value)) return [{ attribute: key, error: `is ${describeValue(value)}, not a list of messages ([{"role", "parts"}]): none of its messages is read` }];
  const notes: MalformedAttribute[] = [];
  value.forEach((message, index) => {
    if (!isObject(message)) {
      notes.push({ attribute: key, error: `[${index}] is ${describeValue(message)}, not a message object ({"role", "parts"}): left out, its text not read` });
      return;
    }
    if (!Array.isArray(message.parts)) {
      if (typeof message.content !== "string") {
        notes.push({ attribute: key, error: `[${index}] has neither a "parts" list nor a "content" text (${describeValue(message)}): its text is not read` });
      }
      return;
    }
    message.parts.forEach((part, partIndex) => {
      if (!isObject(part)) {
        notes.push({ attribute: key, error: `[${index}].parts[${partIndex}] is ${describeValue(part)}, not a part object ({"type", "content"}): its text is not read` });
      } else if (part.type === "text" && typeof part.content !== "string") {
        notes.push({ attribute: key, error: `[${index}].parts[${partIndex}] is a text part whose "content" is ${describeValue(part.content)} (${describeValue(part)}), not text: its text is not read` });
      }
    });
  });
  return notes;
}
