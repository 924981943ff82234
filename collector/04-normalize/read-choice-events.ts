/**
 * A generation's answer from the GenAI conventions' `gen_ai.choice` events, where the span records its messages
 * as events instead of attributes: the Azure AI Inference client library's instrumentor
 * (test/golden/python/azure_ai_inference_policy_rag.py) and Semantic Kernel for .NET write one span event per
 * choice, the choice `{ index, finish_reason, message: { role, content } }` as the JSON text of its
 * `gen_ai.event.content` attribute (Semantic Kernel's text completions: `message` the text itself);
 * opentelemetry-instrumentation-openai-v2 on the conventions' older path sends the same choice as the body of a
 * `gen_ai.choice` log record, which the assembler joins to the span as an event (log-event-record.ts).
 *
 * - The answer is choice 0, what an app takes (`choices[0]`); without an index, the first choice event.
 * - A choice with no message content is not recorded, not an empty answer: the Azure instrumentor writes
 *   `{ finish_reason, index }` alone when content recording is off (its default); a tool call has no text either.
 * - Content that is there but no text (a list of parts, a number) is named on the Case Result, and the answer is
 *   not available: no other choice is taken in its place.
 * - JSON text that does not parse is named by find-malformed-json.ts, and reads as not recorded here.
 */
import { GenAi } from "../../contracts/span-attributes.js";
import type { SpanEventRecord } from "../00-otlp/span-record.js";
import { describeValue } from "./explain-unread-value.js";
import type { MalformedAttribute } from "./find-malformed-json.js";

export interface ChoiceEventsAnswer {
  /** Choice 0's text; null when no choice event records one. */
  text: string | null;
  /** Whether the span has a choice event at all: its messages are recorded as events. */
  recorded: boolean;
  notes: MalformedAttribute[];
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * The event's choice: a log record's body (opentelemetry-instrumentation-openai-v2's events, joined to the span), else
 * the parsed JSON of its content attribute, or the structured value an exporter sent; null when none is an object.
 */
function choiceOf(event: SpanEventRecord): Record<string, unknown> | null {
  if (isObject(event.body)) return event.body;
  const content = event.attributes[GenAi.eventContent];
  if (isObject(content)) return content;
  if (typeof content !== "string") return null;
  try {
    const parsed: unknown = JSON.parse(content);
    return isObject(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

export function answerFromChoiceEvents(events: readonly SpanEventRecord[]): ChoiceEventsAnswer {
  const choices = events.filter((event) => event.name === GenAi.choiceEvent).map((event) => ({ event, choice: choiceOf(event) }));
  if (choices.length === 0) return { text: null, recorded: false, notes: [] };
  const chosen = choices.find(({ choice }) => choice?.index === 0) ?? choices[0]!;
  const message = chosen.choice?.message;
  if (typeof message === "string") return { text: message === "" ? null : message, recorded: true, notes: [] };
  if (!isObject(message)) return { text: null, recorded: true, notes: message === undefined || message === null ? [] : [unreadChoice(`its message is ${describeValue(message)}, no message object`)] };
  const content = message.content;
  if (typeof content === "string") return { text: content === "" ? null : content, recorded: true, notes: [] };
  if (content === undefined || content === null) return { text: null, recorded: true, notes: [] };
  return { text: null, recorded: true, notes: [unreadChoice(`its message's content is ${describeValue(content)}, no text`)] };
}

function unreadChoice(what: string): MalformedAttribute {
  return {
    attribute: `${GenAi.choiceEvent}: ${GenAi.eventContent}`,
    error: `the choice the answer is taken from cannot be read (${what}): the answer is not available (no other choice is taken in its place)`,
  };
}
