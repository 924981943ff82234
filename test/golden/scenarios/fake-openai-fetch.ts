/**
 * A fake OpenAI endpoint for the openai client's `fetch` option: every chat
 * completion request gets the scripted answer with the given token usage, in
 * the Chat Completions response shape. Nothing leaves the process, and the
 * client's base URL (and so the instrumentations' `server.address`) stays
 * the same on every recording.
 */
export interface ScriptedCompletion {
  model: string;
  answer: string;
  promptTokens: number;
  completionTokens: number;
}

export const fakeOpenAiBaseUrl = "http://fake-openai.invalid/v1";

export function fakeOpenAiFetch(completion: ScriptedCompletion): typeof fetch {
  return async (input) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    if (!url.endsWith("/chat/completions")) return new Response(JSON.stringify({ error: { message: `not scripted: ${url}` } }), { status: 404, headers: { "content-type": "application/json" } });
    const body = {
      id: "chatcmpl-golden-1",
      object: "chat.completion",
      created: 1_783_503_000,
      model: completion.model,
      choices: [{ index: 0, message: { role: "assistant", content: completion.answer, refusal: null }, finish_reason: "stop", logprobs: null }],
      usage: { prompt_tokens: completion.promptTokens, completion_tokens: completion.completionTokens, total_tokens: completion.promptTokens + completion.completionTokens },
    };
    return new Response(JSON.stringify(body), { status: 200, headers: { "content-type": "application/json" } });
  };
}
