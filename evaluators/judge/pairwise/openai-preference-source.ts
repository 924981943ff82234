/**
 * The pairwise preference question asked of an OpenAI-compatible judge, with
 * the same fencing, temperature 0, structured output, retries and budget as
 * metric judging (chat-judge-client.ts). Versioned like the rubrics.
 */
import { z } from "zod";
import { failure, success, type Result } from "../../../core/result.js";
import type { ChatJudgeClient } from "../chat-judge-client.js";
import { FENCE_RULE, fence, fenceDocuments } from "../fence-text.js";
import { describeIssues } from "../rubrics/judge-rubric.js";
import type { PreferenceAnswer, PreferenceFailure, PreferenceQuestion, PreferenceSource } from "./pairwise-comparison.js";

export const PAIRWISE_PROMPT_VERSION = "pairwise_preference@1";

const output = z.object({
  preferred: z.enum(["first", "second", "tie"]),
  reason: z.string(),
});

export function pairwisePrompt(question: PreferenceQuestion): { system: string; user: string } {
  const system = [
    "You compare two answers to the same question, produced by retrieval-augmented question answering systems.",
    FENCE_RULE,
    "The order in which the answers are shown says nothing about their quality; judge only their content.",
    `Criterion: ${question.criterion}.`,
    'Reply with a single JSON object and nothing else: {"preferred": "first" | "second" | "tie", "reason": "<one sentence>"}.',
    'If you cannot compare at all, reply {"cannot_judge": true, "reason": "<why>"}.',
  ].join("\n");
  const user = [
    fence("QUESTION", question.question),
    ...(question.documents.length === 0 ? [] : [fenceDocuments(question.documents).text]),
    fence("FIRST ANSWER", question.first),
    fence("SECOND ANSWER", question.second),
  ].join("\n\n");
  return { system, user };
}

export class OpenAiPreferenceSource implements PreferenceSource {
  constructor(
    readonly id: string,
    private readonly client: ChatJudgeClient,
  ) {}

  async prefer(question: PreferenceQuestion, signal?: AbortSignal): Promise<Result<PreferenceAnswer, PreferenceFailure>> {
    const result = await this.client.call(
      {
        ...pairwisePrompt(question),
        schemaName: "pairwise_preference",
        jsonSchema: z.toJSONSchema(output) as Record<string, unknown>,
        interpret: (answer) => {
          const parsed = output.safeParse(answer);
          return parsed.success ? success(parsed.data) : failure(`the answer does not match the pairwise schema: ${describeIssues(parsed.error)}`);
        },
      },
      signal,
    );
    if (!result.ok) return failure({ errorType: result.error.errorType, message: result.error.message, usage: result.error.usage });
    return success({ preferred: result.value.value.preferred, reason: result.value.value.reason, usage: result.value.usage });
  }
}
