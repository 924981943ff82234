/**
 * What a judge's tokens cost, per 1,000 tokens (issue 6: token and cost
 * accounting per evaluator, kept apart from the application's own cost). The
 * currency is whatever the configuration uses; the spending limit is in the
 * same unit.
 */
export interface JudgePricing {
  inputPer1kTokens: number;
  outputPer1kTokens: number;
}

export const FREE: JudgePricing = { inputPer1kTokens: 0, outputPer1kTokens: 0 };

/**
 * What the tokens cost; null without pricing (no price configured): the cost is not known, which is not a
 * cost of 0 — as the pipeline's own cost without a price is null (README "Judge settings").
 */
export function costOf(pricing: JudgePricing | null, inputTokens: number, outputTokens: number): number | null {
  if (pricing === null) return null;
  return (inputTokens / 1000) * pricing.inputPer1kTokens + (outputTokens / 1000) * pricing.outputPer1kTokens;
}

/** The sum of costs, null when any is not known: a part unknown leaves the total unknown. */
export function sumCosts(costs: readonly (number | null)[]): number | null {
  let total = 0;
  for (const cost of costs) {
    if (cost === null) return null;
    total += cost;
  }
  return total;
}

/**
 * Rough token count for endpoints that report no usage: about four characters
 * per token for English, and at least one per CJK character. An estimate keeps
 * the spending limit working; a zero would let an endpoint without usage
 * reporting spend without bound.
 */
export function estimateTokens(text: string): number {
  const cjk = text.match(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu)?.length ?? 0;
  return cjk + Math.ceil((text.length - cjk) / 4);
}

/**
 * Tokens a chat template adds around the text: role markers and separators per
 * message (3 to 5 in OpenAI's, ChatML and Llama 3 templates) and, per request,
 * the reply's priming and the preamble some templates insert (Llama 3.1's
 * knowledge-cutoff lines, about 25). Generous on purpose: they bound, they do
 * not estimate.
 */
const TEMPLATE_TOKENS_PER_MESSAGE = 8;
const TEMPLATE_TOKENS_PER_REQUEST = 64;

/**
 * The most prompt tokens a request can be billed: one per UTF-8 byte of the
 * text it sends, plus the chat template's own. Byte-level BPE tokenizers (GPT,
 * Llama 3, Qwen) and SentencePiece with byte fallback never make a token of
 * less than one byte, so a server cannot count more. `estimateTokens` is a
 * typical count (English is about four bytes a token), not a bound: a
 * spending limit that reserved it could be passed by a prompt of JSON or
 * numbers, which tokenize more densely.
 */
export function promptTokensAtMost(messages: readonly string[], extraText = ""): number {
  const bytes = messages.reduce((total, message) => total + utf8Bytes(message), utf8Bytes(extraText));
  return bytes + messages.length * TEMPLATE_TOKENS_PER_MESSAGE + TEMPLATE_TOKENS_PER_REQUEST;
}

/** UTF-8 length without an encoder (evaluators/ does no I/O and needs no Node Buffer); a lone surrogate is sent as U+FFFD, 3 bytes. */
function utf8Bytes(text: string): number {
  let bytes = 0;
  for (const character of text) {
    const point = character.codePointAt(0) ?? 0;
    bytes += point < 0x80 ? 1 : point < 0x800 ? 2 : point < 0x10000 ? 3 : 4;
  }
  return bytes;
}

/**
 * The most one request can cost, or null when that is unknown: output is
 * priced but no `max_tokens` is sent, so the server's default (up to the
 * model's context) bounds the answer, and nothing here knows it; the caller
 * then keeps the old check (judge-budget.ts). Unknown prices — none
 * configured, so every token counts as free — give 0: nothing is held, and
 * the limit behaves as before, refusing calls only once the spending reached
 * it (at no cost, only a limit of 0 is ever reached).
 */
export function worstCaseCost(pricing: JudgePricing | null, promptTokens: number, maxOutputTokens: number | undefined): number | null {
  const priced = pricing ?? FREE;
  if (maxOutputTokens === undefined && priced.outputPer1kTokens > 0) return null;
  return (promptTokens / 1000) * priced.inputPer1kTokens + ((maxOutputTokens ?? 0) / 1000) * priced.outputPer1kTokens;
}
