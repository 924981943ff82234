/**
 * An LLM span with no completion at all — no `gen_ai.completion.N.*`, no `gen_ai.output.messages` — whose SDK dropped
 * attributes (attributes-dropped-by-sdk.ts), for the Case Result's `malformed_attributes` (kind `unreadable_value`).
 *
 * Its answer is null either way; the note says why, where it was silently absent. OpenLLMetry sets a call's
 * completions after its prompts (and the GenAI conventions' output messages after the input ones), so an SDK that
 * keeps the attributes set first and drops the ones after its count limit (the JS SDK's `Span.setAttribute`) loses the
 * completions first, and whole: no completion index is left to show a gap or a cut (unread-index-gaps.ts,
 * unread-cut-list.ts). That is the likely cause, not a certain one — an instrumentation that records no content (e.g.
 * TRACELOOP_TRACE_CONTENT=false) writes no completion either, and then no prompt — so the note says which prompts the
 * span still carries.
 *
 * Python's SDK evicts the OLDEST attribute instead (sdk-attribute-order.ts): the completions, set last, are what it
 * keeps, so there the limit does not explain their absence. On a span whose SDK is not the JS one, or does not say,
 * the note gives both orders and names the limit as a possible cause only.
 *
 * A span that dropped nothing and carries no completion (content not recorded, a tool call only) gets no note: nothing
 * was lost, and nothing is said about it.
 */
import { GenAi } from "../../contracts/span-attributes.js";
import type { Attributes } from "../00-otlp/span-record.js";
import { flattenedIndexes } from "./attribute-readers.js";
import type { MalformedAttribute } from "./find-malformed-json.js";
import { sdkLimitFact } from "./unread-index-gaps.js";
import { sdkLanguagePhrase, type SdkAttributeOrder } from "./sdk-attribute-order.js";

/**
 * @param droppedBySdk the span's attributes its SDK dropped (attributesDroppedBySdk)
 * @param order which attributes the span's SDK drops (sdkAttributeOrder)
 * @returns one note when the span lost attributes and carries no completion, else none
 */
export function unreadDroppedCompletions(attributes: Attributes, droppedBySdk: number, order: SdkAttributeOrder): MalformedAttribute[] {
  if (droppedBySdk === 0) return [];
  if (attributes[GenAi.outputMessages] !== undefined || flattenedIndexes(attributes, GenAi.completionPrefix).length > 0) return [];
  const prompts = flattenedIndexes(attributes, GenAi.promptPrefix).length;
  const carried =
    prompts > 0
      ? `it carries its ${prompts === 1 ? "prompt" : `${prompts} prompts`}, set before the completions`
      : attributes[GenAi.inputMessages] !== undefined
        ? `it carries ${GenAi.inputMessages}, set before the output`
        : "it carries no prompt either, which an instrumentation that records no content would also leave";
  return [
    {
      attribute: `${GenAi.completionPrefix}.0`,
      error:
        `is absent, and so is every other completion and ${GenAi.outputMessages}: the span carries no answer, and its SDK dropped attributes past its count limit; ` +
        (order.keepsFirst
          ? `the limit is the likely cause (${carried}; an SDK that keeps the attributes set first, as the JS SDK does, drops the completions set last, whole), `
          : `the limit may be the cause, or no completion was recorded (${carried}; ${sdkLanguagePhrase(order)}: an SDK that keeps the attributes set first, as the JS SDK does, drops the completions set last, whole, ` +
            "while one that evicts the oldest, as Python's does, keeps them), ") +
        `so the answer is not available from this span. ${sdkLimitFact(droppedBySdk)}`,
    },
  ];
}
