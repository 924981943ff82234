/**
 * The labels a failed case's primary root cause can take.
 *
 * - The seed's error attribution labels (004 §十 错误归因体系), with its
 *   Chinese descriptions verbatim: what went wrong in a request that ran.
 *   Each failed case gets one of them as its primary root cause
 *   ("推荐使用'首要根因'而不是给每个失败样本无限打标签"). Their English
 *   (QUALITY_ROOT_CAUSE_MEANINGS) is shown first on every surface, the
 *   seed's Chinese beside it (rootCauseMeaning).
 * - A request that did not complete (its task threw or passed its timeout)
 *   has no answer to attribute: its cause is the Case Result's
 *   `execution_error.type` (seed 000 `system_error | timeout |
 *   environment_error`), named in upper case like the others.
 * - UNATTRIBUTED is no label: the procedure found no cause, and says so
 *   rather than guess one (root-cause-procedure.ts). It is not among the
 *   labels a reviewer or a filter can choose; the web UI's Failures board
 *   counts such cases among those without a root cause.
 */
export const QUALITY_ROOT_CAUSE_LABELS = {
  DATA_MISSING: "知识库缺少相关内容",
  DATA_OUTDATED: "文档已过期",
  DATA_CONFLICT: "文档之间存在冲突",
  CHUNK_BAD: "切片破坏语义",
  QUERY_UNDERSTANDING: "问题理解错误",
  QUERY_REWRITE_BAD: "查询改写错误",
  RETRIEVAL_MISS: "未召回正确文档",
  RERANK_BAD: "正确文档排序过低",
  CONTEXT_TRUNCATED: "关键证据被截断",
  CONTEXT_NOISY: "上下文噪声过多",
  REASONING_ERROR: "推理错误",
  HALLUCINATION: "生成无依据内容",
  INCOMPLETE_ANSWER: "答案不完整",
  CITATION_ERROR: "引用错误",
  SHOULD_ABSTAIN: "本应拒答但进行了回答",
  OVER_ABSTAIN: "有答案却拒答",
  PERMISSION_LEAK: "权限泄露",
  FORMAT_ERROR: "输出格式错误",
} as const;

export const EXECUTION_ROOT_CAUSE_LABELS = {
  SYSTEM_ERROR: "execution_error.type system_error: the request threw before it answered",
  TIMEOUT: "execution_error.type timeout: the request passed its time limit",
  ENVIRONMENT_ERROR: "execution_error.type environment_error: the environment the request needed failed",
} as const;

export const ROOT_CAUSE_LABELS = { ...QUALITY_ROOT_CAUSE_LABELS, ...EXECUTION_ROOT_CAUSE_LABELS } as const;

/**
 * The seed's labels in English, for readers who do not read Chinese: a short, faithful translation of each
 * description above (which stays the seed's wording, and what a surface shows beside it). Typed by the labels, so a
 * label added above without its English does not compile.
 *
 * RETRIEVAL_MISS and RERANK_BAD say "evidence" where the seed says 文档 (document): the procedure gives them for a
 * gold chunk, a section or a text as much as for a whole document, and "the correct document was not retrieved"
 * beside a chunk table that marks a retrieved chunk of that very document as gold read as a contradiction.
 */
export const QUALITY_ROOT_CAUSE_MEANINGS: Readonly<Record<keyof typeof QUALITY_ROOT_CAUSE_LABELS, string>> = {
  DATA_MISSING: "The knowledge base lacks the relevant content",
  DATA_OUTDATED: "The document is out of date",
  DATA_CONFLICT: "Documents contradict each other",
  CHUNK_BAD: "Chunking broke the meaning",
  QUERY_UNDERSTANDING: "The question was misunderstood",
  QUERY_REWRITE_BAD: "The query was rewritten wrongly",
  RETRIEVAL_MISS: "The correct evidence was not retrieved",
  RERANK_BAD: "The correct evidence was ranked too low",
  CONTEXT_TRUNCATED: "Key evidence was cut off",
  CONTEXT_NOISY: "Too much noise in the context",
  REASONING_ERROR: "Wrong reasoning",
  HALLUCINATION: "Generated content without support",
  INCOMPLETE_ANSWER: "The answer is incomplete",
  CITATION_ERROR: "Wrong citation",
  SHOULD_ABSTAIN: "Answered where it should have refused",
  OVER_ABSTAIN: "Refused although an answer existed",
  PERMISSION_LEAK: "Permission leak",
  FORMAT_ERROR: "Wrong output format",
};

/** What a label means: in English, and in the seed's own words (null for the execution errors, which the seed does not describe). */
export interface RootCauseMeaning {
  english: string;
  seedWording: string | null;
}

/** The meaning of a label, or null for a name that is no label (e.g. UNATTRIBUTED, or a label a newer evaluator wrote). */
export function rootCauseMeaning(label: string): RootCauseMeaning | null {
  if (Object.hasOwn(QUALITY_ROOT_CAUSE_MEANINGS, label)) {
    const quality = label as keyof typeof QUALITY_ROOT_CAUSE_LABELS;
    return { english: QUALITY_ROOT_CAUSE_MEANINGS[quality], seedWording: QUALITY_ROOT_CAUSE_LABELS[quality] };
  }
  if (Object.hasOwn(EXECUTION_ROOT_CAUSE_LABELS, label)) return { english: EXECUTION_ROOT_CAUSE_LABELS[label as keyof typeof EXECUTION_ROOT_CAUSE_LABELS], seedWording: null };
  return null;
}

export type RootCauseLabel = keyof typeof ROOT_CAUSE_LABELS;
export type ExecutionRootCauseLabel = keyof typeof EXECUTION_ROOT_CAUSE_LABELS;

export const ROOT_CAUSE_LABEL_NAMES = Object.keys(ROOT_CAUSE_LABELS) as RootCauseLabel[];

/** What a failed case the procedure could not explain is stored under (never counted as a label). */
export const UNATTRIBUTED = "UNATTRIBUTED";

/** A label, or UNATTRIBUTED. */
export type PrimaryCause = RootCauseLabel | typeof UNATTRIBUTED;
