/**
 * Heuristic groundedness for the heuristic judge, built on the reference-free
 * check the online evaluators use (evaluators/online/: split-claims.ts,
 * claim-support.ts, content-units.ts), so the embedded judge's faithfulness and
 * the `heuristic_groundedness` metric measure the same thing the same way —
 * content words (CJK bigrams), numbers, dates and entities.
 *
 * Two additions for judging:
 * 1. A sentence is split again at a comma that introduces a further statement
 *    (，且 / ，并且 / , and …), so the seed's "员工每年享有5天年假，且未使用的年假
 *    可折现" (004 §五.1) is two claims — one supported, one not — as an LLM judge
 *    splitting atomic facts would make it (§九.3 "要求先拆分原子事实").
 * 2. Sentences that only say the information is unavailable (abstention
 *    phrases) are not claims.
 * A claim is supported when the whole context supports it (as the online
 * metric decides); its evidence is each document that supports it alone.
 */
import { checkClaim, prepareSupportContext, type SupportContext } from "../online/claim-support.js";
import { unitRecall, unitSet } from "../online/content-units.js";
import { splitClaims as splitSentences } from "../online/split-claims.js";
import { findAbstentionPhrase } from "../text/abstention-phrases.js";
import type { JudgeDocument } from "./judge-inputs.js";

/** A comma (full- or half-width) followed by a word that adds a statement. */
const CLAUSE_BREAK = /[，,]\s*(?=(?:且|并且|而且|另外|此外|同时|但是|但|不过|and also|and|but|also|however)(?:\s|[^\s]))/iu;

export function splitClaims(answer: string): string[] {
  return splitSentences(answer)
    .flatMap((sentence) => sentence.split(CLAUSE_BREAK))
    .map((claim) => claim.trim())
    .filter((claim) => claim !== "" && findAbstentionPhrase(claim) === null);
}

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
