/**
 * Claim support for the heuristic judge, built on the reference-free overlap
 * check the online measure uses (online/claim-support.ts, content-units.ts)
 * and the one answer splitter (text/answer-sentences.ts: sentences cut again
 * at clause breaks, preambles and abstaining pieces set aside), so the
 * embedded judge's faithfulness and the `heuristic_groundedness` overlap
 * measure count the same claims the same way — content words (CJK bigrams),
 * numbers, dates and entities. Word overlap is not entailment: these values
 * route traces to a judge or a reviewer, they decide no verdict.
 *
 * A claim is supported when the whole context supports it (as the online
 * measure decides); its evidence is each document that supports it alone.
 */
import { checkClaim, prepareSupportContext, type SupportContext } from "../online/claim-support.js";
import { unitRecall, unitSet } from "../online/content-units.js";
import { splitClaims } from "../text/answer-sentences.js";
import type { JudgeDocument } from "./judge-inputs.js";

export interface PreparedDocuments {
  whole: SupportContext;
  each: Array<{ id: string; context: SupportContext }>;
}

export function prepareDocuments(documents: readonly JudgeDocument[]): PreparedDocuments {
  return {
    whole: prepareSupportContext(documents.map((document) => document.text).join("\n")),
    each: documents.map((document) => ({ id: document.id, context: prepareSupportContext(document.text) })),
  };
}

export interface ClaimSupport {
  claim: string;
  supported: boolean;
  /** Numbers, dates and entities of the claim the context does not state. */
  missing_facts: string[];
  evidence_ids: string[];
}

/** Null when the text holds nothing checkable (claim-support.ts). */
export function claimSupport(claim: string, documents: PreparedDocuments): ClaimSupport | null {
  const verdict = checkClaim(claim, documents.whole);
  if (verdict === null) return null;
  const evidence = verdict.supported ? documents.each.filter((document) => checkClaim(claim, document.context)?.supported === true).map((document) => document.id) : [];
  return { claim, supported: verdict.supported, missing_facts: verdict.missingFacts, evidence_ids: evidence };
}

/** The claims of an answer with their support; texts with nothing checkable are left out. */
export function assessClaims(answer: string, documents: PreparedDocuments): ClaimSupport[] {
  return splitClaims(answer)
    .map((claim) => claimSupport(claim, documents))
    .filter((support): support is ClaimSupport => support !== null);
}

/** Share of the text's content units found in a document (0 when it has none). */
export function contentRecall(text: string, document: string): number {
  return unitRecall(text, unitSet(document)).recall ?? 0;
}
