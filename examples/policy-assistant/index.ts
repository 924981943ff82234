/** The policy assistant example: a deterministic, instrumented RAG service (see examples/README.md). */
export {
  createPolicyAssistant,
  DEFAULT_TENANT_ID,
  DEFAULT_TOP_K,
  RETRIEVER_NAME,
  type PolicyAnswer,
  type PolicyAssistant,
  type PolicyAssistantOptions,
  type PolicyRequest,
  type RetrievedChunkView,
} from "./create-policy-assistant.js";
export { replayForCase, type CaseReplay } from "./case-request.js";
export { BUNDLED_CORPUS_PATH, loadBundledCorpus, parsePolicyCorpus, readPolicyCorpus, type PolicyChunk, type PolicyCorpus } from "./corpus/policy-corpus.js";
export { DEFAULT_CONTEXT_TOKEN_BUDGET } from "./pipeline/context-assembler.js";
export { ABSTENTION_CHINESE, ABSTENTION_ENGLISH, DEFAULT_SUPPORT_THRESHOLD, GENERATOR_MODEL, PROMPT_VERSION } from "./pipeline/extractive-generator.js";
export { POLICY_MEMORY, type MemoryEntry } from "./pipeline/parametric-memory.js";
export { countTokens, lexicalTerms } from "./pipeline/text-terms.js";
export { parseCaseFile, type CaseFile } from "./case-file.js";
