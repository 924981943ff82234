/**
 * The OpenAI-compatible judge pointed at the fake chat completions server, one
 * attempt and no waiting between attempts, with a structured-output memory of
 * its own: what the judge parsing suites need to see exactly one scripted
 * answer read.
 */
import { OpenAiJudge, type OpenAiJudgeOptions } from "../../evaluators/judge/openai-judge.js";
import { StructuredOutputMemory } from "../../evaluators/judge/structured-output.js";
import type { FakeChatCompletionsServer } from "./fake-chat-completions-server.js";

export function judgeOfFakeServer(server: FakeChatCompletionsServer, options: Partial<OpenAiJudgeOptions> & Pick<OpenAiJudgeOptions, "structuredOutput">): OpenAiJudge {
  return new OpenAiJudge({
    baseUrl: server.baseUrl,
    apiKey: "k",
    model: "fake-judge",
    structuredOutputMemory: new StructuredOutputMemory(),
    retryPolicy: { initialDelayMs: 1, maxDelayMs: 1, maxAttempts: 1, deadlineMs: 5_000 },
    ...options,
  });
}
