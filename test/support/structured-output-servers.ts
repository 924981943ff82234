/**
 * How OpenAI-compatible servers answer a `response_format` they do not
 * support, as responders for the fake chat-completions server
 * (fake-chat-completions-server.ts). Status codes and error-body shapes follow
 * each server's error handler:
 *
 * - llama-cpp-python's server (llama_cpp/server/errors.py): any exception while
 *   building the grammar is HTTP 500 with `{"error": {message, type:
 *   "internal_server_error", param: null, code: null}}` — issue 18 measured a 500
 *   for `json_schema`; it accepts `json_object` with a `schema` field.
 * - OpenAI, on a model without Structured Outputs: 400 `invalid_request_error`
 *   with `param: "response_format"`.
 * - vLLM (vllm/entrypoints/openai/protocol.py ErrorResponse): 400 with the error
 *   at the top level — `{"object": "error", message, type: "BadRequestError",
 *   param: null, code: 400}` — here for a build that constrains neither form.
 * - llama.cpp's C++ server before `json_schema` support: 400
 *   `{"error": {"code": 400, message, "type": "invalid_request_error"}}`.
 * - Ollama's OpenAI layer: 400 `{"error": {message, type: "invalid_request_error",
 *   param: null, code: null}}`.
 */
import { reply, type RecordedRequest, type ScriptedReply } from "./fake-chat-completions-server.js";

export type RequestedForm = "json_schema" | "json_object" | "instructions";

export function requestedForm(request: RecordedRequest): RequestedForm {
  const format = request.body.response_format as { type?: unknown } | undefined;
  if (format?.type === "json_schema") return "json_schema";
  if (format?.type === "json_object") return "json_object";
  return "instructions";
}

export interface ServerBehaviour {
  name: string;
  /** The forms the server refuses, with its refusal. */
  refuses: Partial<Record<RequestedForm, ScriptedReply>>;
  /** The strongest form it accepts: where negotiation must end. */
  accepts: RequestedForm;
}

export const SERVER_BEHAVIOURS: readonly ServerBehaviour[] = [
  // llama.cpp's current C++ server, OpenAI's current models, vLLM with guided decoding.
  { name: "a server with json_schema support", refuses: {}, accepts: "json_schema" },
  {
    name: "llama-cpp-python server",
    refuses: {
      json_schema: reply.status(500, { body: { error: { message: "'json_schema'", type: "internal_server_error", param: null, code: null } } }),
    },
    accepts: "json_object",
  },
  {
    name: "OpenAI, a model without Structured Outputs",
    refuses: {
      json_schema: reply.status(400, {
        body: {
          error: {
            message: "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model. Learn more about supported models at the Structured Outputs guide: https://platform.openai.com/docs/guides/structured-outputs",
            type: "invalid_request_error",
            param: "response_format",
            code: null,
          },
        },
      }),
    },
    accepts: "json_object",
  },
  {
    name: "llama.cpp server before json_schema support",
    refuses: {
      json_schema: reply.status(400, { body: { error: { code: 400, message: 'response_format type must be one of "text" or "json_object", but got: json_schema', type: "invalid_request_error" } } }),
    },
    accepts: "json_object",
  },
  {
    name: "Ollama's OpenAI layer, a build without format support",
    refuses: {
      json_schema: reply.status(400, { body: { error: { message: "invalid response_format", type: "invalid_request_error", param: null, code: null } } }),
    },
    accepts: "json_object",
  },
  {
    name: "vLLM without a guided-decoding backend",
    refuses: {
      json_schema: reply.status(400, { body: { object: "error", message: "guided decoding backend is not available", type: "BadRequestError", param: null, code: 400 } }),
      json_object: reply.status(400, { body: { object: "error", message: "guided decoding backend is not available", type: "BadRequestError", param: null, code: 400 } }),
    },
    accepts: "instructions",
  },
];

/** A responder: the behaviour's refusal for a refused form, else `answer`. */
export function behaveAs(behaviour: ServerBehaviour, answer: (request: RecordedRequest) => ScriptedReply): (request: RecordedRequest) => ScriptedReply {
  return (request) => behaviour.refuses[requestedForm(request)] ?? answer(request);
}
