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

export function costOf(pricing: JudgePricing, inputTokens: number, outputTokens: number): number {
  return (inputTokens / 1000) * pricing.inputPer1kTokens + (outputTokens / 1000) * pricing.outputPer1kTokens;
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
