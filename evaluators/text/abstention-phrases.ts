/**
 * Does an answer decline to answer (seed 004 §五.6: 明确说明当前资料不足、
 * 不编造答案)? A phrase list, matched as whole token sequences after
 * normalizeText (token-sequence.ts), so case, width and punctuation do not
 * count ("I don't know" matches "i don t know", "资料不足" matches "资料 不足").
 *
 * The list holds statements of not knowing or not having the information.
 * Apologies alone (抱歉, 对不起, sorry) are deliberately NOT on it: "抱歉给您
 * 带来不便，退款将在3天内到账" apologises and answers. Nor are bare negations
 * (无法, 没有找到, can't find, 未提及): "这个商品不能退款", "如果没有找到订单，
 * 请联系客服", "If you can't find the receipt, …" and "条款未提及的情况按…处理"
 * are answers; the list names the source or the speaker instead (资料中未提及,
 * 无法从资料中, I can't find). An answer
 * that says the material is insufficient and then guesses anyway still counts
 * as abstaining: it told the user the answer is not grounded.
 *
 * A trace's explicit abstention flag, when recorded, wins over this list
 * (rules/answer-abstention.ts).
 */
import { tokenize } from "./normalize-text.js";
import { indexOfTokenSequence } from "./token-sequence.js";

export const CHINESE_ABSTENTION_PHRASES: readonly string[] = [
  "无法回答", "不能回答", "无法解答", "无法为您解答", "无法为你解答", "无法为您回答", "无法确定", "无法提供相关",
  "无法从资料中", "无法从文档中", "无法从提供的", "资料不足", "信息不足", "资料不够", "信息不够", "依据不足",
  "没有找到相关", "未找到相关", "找不到相关", "未能找到", "没有相关信息", "没有相关资料", "暂无相关",
  "资料中没有", "文档中没有", "知识库中没有", "上下文中没有", "资料里没有", "文档里没有",
  "资料中未提及", "文档中未提及", "资料未提及", "文档未提及", "并未提及",
  "我不知道", "我不清楚", "我不确定",
];

export const ENGLISH_ABSTENTION_PHRASES: readonly string[] = [
  "I don't know", "I do not know", "I'm not sure", "I am not sure",
  "cannot answer", "can't answer", "unable to answer", "not able to answer", "cannot be answered", "can't be answered",
  "I cannot find", "I can't find", "I could not find", "I couldn't find", "I was unable to find", "I did not find", "I didn't find",
  "not enough information", "insufficient information", "not sufficient information", "no information about", "no information on", "no relevant information",
  // The speaker saying what they lack ("Sorry, I don't have enough information to answer that"): with "I", so an
  // instruction ("if you don't have the information, …") is no refusal.
  "I don't have enough information", "I do not have enough information", "I don't have sufficient information", "I do not have sufficient information",
  "I don't have the information", "I do not have the information", "I don't have any information", "I do not have any information",
  "I don't have enough context", "I do not have enough context",
  "the documents do not", "the documents don't", "the document does not", "the document doesn't",
  "the context does not", "the context doesn't", "the provided context does not", "the provided documents do not",
  "documents do not answer", "documents don't answer", "documents do not mention", "documents don't mention",
  "documents do not say", "documents don't say", "documents do not cover", "documents don't cover",
  "context does not mention", "context doesn't mention",
  "passage does not mention", "passage doesn't mention", "passage does not say", "passage doesn't say", "passage does not specify", "passage doesn't specify", "does not answer this question", "do not answer this question",
  "does not contain information", "doesn't contain information", "do not contain information", "not mentioned in the", "no answer to",
  "documents contain no", "document contains no", "context contains no", "passage contains no", "sources contain no",
];

export const ABSTENTION_PHRASES: readonly string[] = [...CHINESE_ABSTENTION_PHRASES, ...ENGLISH_ABSTENTION_PHRASES];

const PHRASE_TOKENS = ABSTENTION_PHRASES.map((phrase) => ({ phrase, tokens: tokenize(phrase) }));

/** The first listed phrase the answer contains, or null. */
export function findAbstentionPhrase(answer: string): string | null {
  const tokens = tokenize(answer);
  if (tokens.length === 0) return null;
  for (const { phrase, tokens: needle } of PHRASE_TOKENS) if (indexOfTokenSequence(tokens, needle) >= 0) return phrase;
  return null;
}
