/**
 * Generation, simulated deterministically: the "model" reads a prompt of
 * numbered context sentences and answers with the best-supported sentence(s),
 * citing them as [n].
 *
 * 1. If the question matches the parametric memory (pipeline/parametric-memory.ts)
 *    the answer comes from memory, whatever the context says, and cites [1].
 * 2. Otherwise every context sentence gets a support score (pipeline/support-score.ts).
 *    Below the support threshold (default DEFAULT_SUPPORT_THRESHOLD) the model
 *    abstains with a fixed phrase.
 * 3. Otherwise it answers with the best sentence, plus the runner-up when that
 *    scores at least SECOND_SENTENCE_RATIO of the best, in prompt order.
 *
 * The [n] markers number sentences, not chunks; pipeline/citation-linker.ts
 * resolves them as chunk positions, the designed citation flaw.
 *
 * Usage and cost are computed from token counts (pipeline/text-terms.ts) and
 * fixed prices, so a replay costs exactly the same.
 */
import type { AssembledContext } from "./context-assembler.js";
import type { LexicalIndex } from "./lexical-retriever.js";
import { recallFromMemory, type MemoryEntry } from "./parametric-memory.js";
import { splitSentences } from "./sentences.js";
import { supportScore } from "./support-score.js";
import { containsChinese, countTokens } from "./text-terms.js";

export const GENERATOR_MODEL = "policy-extractive-sim-1";
export const GENERATOR_PROVIDER = "ragscope-example";
export const PROMPT_VERSION = "policy-answer-v3";
export const DEFAULT_SUPPORT_THRESHOLD = 0.25;
export const SECOND_SENTENCE_RATIO = 0.8;
/** US dollars per million tokens. */
export const INPUT_PRICE_PER_MILLION = 0.15;
export const OUTPUT_PRICE_PER_MILLION = 0.6;

export const ABSTENTION_CHINESE = "抱歉，现有资料不足以回答这个问题。";
export const ABSTENTION_ENGLISH = "Sorry, the available documents do not answer this question.";

const INSTRUCTION =
  "You are a customer-service policy assistant. Answer only from the numbered sentences and cite them as [n]. " +
  "If they do not answer the question, say that the documents are not sufficient.";

export interface PromptSentence {
  /** 1-based number shown in the prompt. */
  number: number;
  text: string;
  chunkId: string;
}

export interface Prompt {
  text: string;
  sentences: PromptSentence[];
}

export type AnswerSource = "context" | "memory" | "abstained";

export interface GeneratedAnswer {
  text: string;
  source: AnswerSource;
  abstained: boolean;
  /** The [n] markers the model wrote, in answer order. */
  citationMarkers: number[];
  /** Best support score over the context sentences; 0 for an empty context. */
  bestSupport: number;
  memoryEntryId: string | null;
  inputTokens: number;
  outputTokens: number;
  /** US dollars. */
  cost: number;
}

export interface GeneratorSettings {
  index: LexicalIndex;
  memory: readonly MemoryEntry[];
  supportThreshold: number;
}

export function buildPrompt(question: string, context: AssembledContext): Prompt {
  const sentences: PromptSentence[] = [];
  for (const packed of context.chunks) {
    for (const text of splitSentences(packed.chunk.text)) {
      sentences.push({ number: sentences.length + 1, text, chunkId: packed.chunk.chunk_id });
    }
  }
  const numbered = sentences.map((sentence) => `[${sentence.number}] ${sentence.text}`).join("\n");
  return { text: `${INSTRUCTION}\n\nSentences:\n${numbered}\n\nQuestion: ${question}`, sentences };
}

export function generateAnswer(settings: GeneratorSettings, question: string, prompt: Prompt): GeneratedAnswer {
  const scored = prompt.sentences.map((sentence) => ({ sentence, support: supportScore(settings.index, question, sentence.text) }));
  const bestSupport = scored.reduce((best, entry) => Math.max(best, entry.support), 0);
  const remembered = recallFromMemory(settings.memory, question);
  if (remembered !== undefined) {
    return finish(prompt, remembered.answer, "memory", [1], bestSupport, remembered.id);
  }
  if (bestSupport < settings.supportThreshold) {
    return finish(prompt, containsChinese(question) ? ABSTENTION_CHINESE : ABSTENTION_ENGLISH, "abstained", [], bestSupport, null);
  }
  const floor = Math.max(settings.supportThreshold, SECOND_SENTENCE_RATIO * bestSupport);
  const chosen = [...scored]
    .sort((left, right) => right.support - left.support || left.sentence.number - right.sentence.number)
    .filter((entry) => entry.support >= floor)
    .slice(0, 2)
    .map((entry) => entry.sentence)
    .sort((left, right) => left.number - right.number);
  const separator = chosen.some((sentence) => containsChinese(sentence.text)) ? "" : " ";
  const text = chosen.map((sentence) => sentence.text).join(separator);
  return finish(prompt, text, "context", chosen.map((sentence) => sentence.number), bestSupport, null);
}

function finish(
  prompt: Prompt,
  text: string,
  source: AnswerSource,
  citationMarkers: number[],
  bestSupport: number,
  memoryEntryId: string | null,
): GeneratedAnswer {
  const inputTokens = countTokens(prompt.text);
  const outputTokens = countTokens(text);
  const cost = Number(((inputTokens * INPUT_PRICE_PER_MILLION + outputTokens * OUTPUT_PRICE_PER_MILLION) / 1_000_000).toFixed(10));
  return { text, source, abstained: source === "abstained", citationMarkers, bestSupport, memoryEntryId, inputTokens, outputTokens, cost };
}
