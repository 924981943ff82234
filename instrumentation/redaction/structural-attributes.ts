/**
 * Attributes that identify rather than say something: span kinds, stage names,
 * chunk and document ids, versions, ranks, run and case linkage, model names.
 * Redaction leaves them as they are, because evaluation matches chunk ids
 * against gold evidence and a redacted id would match nothing. Everything
 * else — text, queries, answers, metadata JSON, other instrumentations'
 * attributes — is scanned; user, session and principal ids follow the
 * redaction mode (identity-attributes.ts).
 */
import { OpenInference, Ragscope } from "../../contracts/span-attributes.js";

const exactKeys = new Set<string>([
  OpenInference.spanKind,
  OpenInference.inputMimeType,
  OpenInference.outputMimeType,
  OpenInference.llmModelName,
  OpenInference.llmProvider,
  OpenInference.llmSystem,
  OpenInference.llmPromptTemplateVersion,
  OpenInference.rerankerModelName,
  Ragscope.stage,
  Ragscope.schemaVersion,
  Ragscope.runId,
  Ragscope.caseId,
  Ragscope.caseVersion,
  Ragscope.datasetId,
  Ragscope.datasetVersion,
  Ragscope.tenantId,
  Ragscope.route,
  Ragscope.retrieverName,
  Ragscope.contextChunkIds,
  Ragscope.contextDroppedChunkIds,
  Ragscope.contextDroppedReasons,
  Ragscope.contextTruncatedChunkIds,
  Ragscope.citationChunkIds,
  Ragscope.feedbackKind,
  // The clicked citation's chunk id: kept like the same id on the retrieve and cite spans, or the click matches no chunk.
  Ragscope.feedbackChunkId,
]);

/** `…documents.N.document.id` (OpenInference) and ragscope's per-document id fields. */
const documentIdKey = /(?:^|[._])documents\.\d+\.(?:document\.id|document_id|document_version|section_id|effective_from|effective_to|rank|tenant_id|acl)$/;

/**
 * Answers per key, remembered: every span of every request asks again for the
 * same few hundred keys, and the regular expression was 4 % of an exporting
 * application's CPU (test/bench/sdk-export.bench.ts). Bounded: past the bound
 * keys are tested each time.
 */
const answers = new Map<string, boolean>();
const MAX_REMEMBERED_KEYS = 4096;

export function isStructuralAttribute(key: string): boolean {
  const known = answers.get(key);
  if (known !== undefined) return known;
  const answer = exactKeys.has(key) || documentIdKey.test(key);
  if (answers.size < MAX_REMEMBERED_KEYS) answers.set(key, answer);
  return answer;
}
