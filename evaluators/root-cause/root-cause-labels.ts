/**
 * The labels a failed case's primary root cause can take.
 *
 * - The seed's error attribution labels (004 §十 错误归因体系), with its
 *   Chinese descriptions verbatim: what went wrong in a request that ran.
 *   Each failed case gets one of them as its primary root cause
 *   ("推荐使用'首要根因'而不是给每个失败样本无限打标签").
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

export type RootCauseLabel = keyof typeof ROOT_CAUSE_LABELS;
export type ExecutionRootCauseLabel = keyof typeof EXECUTION_ROOT_CAUSE_LABELS;

export const ROOT_CAUSE_LABEL_NAMES = Object.keys(ROOT_CAUSE_LABELS) as RootCauseLabel[];

/** What a failed case the procedure could not explain is stored under (never counted as a label). */
export const UNATTRIBUTED = "UNATTRIBUTED";

/** A label, or UNATTRIBUTED. */
export type PrimaryCause = RootCauseLabel | typeof UNATTRIBUTED;
