/**
 * The seed's error attribution labels (004 §十 错误归因体系), with its Chinese
 * descriptions verbatim. Each failed case gets exactly one of them as its
 * primary root cause ("推荐使用'首要根因'而不是给每个失败样本无限打标签").
 */
export const ROOT_CAUSE_LABELS = {
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

export type RootCauseLabel = keyof typeof ROOT_CAUSE_LABELS;

export const ROOT_CAUSE_LABEL_NAMES = Object.keys(ROOT_CAUSE_LABELS) as RootCauseLabel[];
