/**
 * The embeddings endpoint — the `embeddingsEndpoint` section of the settings
 * schema (collector/wiring/config/settings-schema.ts): any OpenAI-compatible
 * `/v1/embeddings` endpoint (OpenAI, vLLM, Ollama, `llama-server --embeddings`).
 * When a base URL and model are set, the judge workers also measure the
 * auxiliary metric answer_embedding_similarity for every judged trace that has
 * a reference answer (evaluators/embeddings/embedding-similarity.ts); when
 * neither is set nothing is embedded.
 */
import { z } from "zod";
import { EmbeddingsClient } from "../../../evaluators/embeddings/embeddings-client.js";

const number = (minimum: number) => z.coerce.number({ error: "must be a number" }).min(minimum, `must be at least ${minimum}`);

export const embeddingsEndpointSection = z
  .strictObject({
    baseUrl: z.url({ error: "must be a URL such as http://127.0.0.1:8081/v1" }).nullable().default(null),
    model: z.string().min(1).nullable().default(null),
    apiKey: z.string().default(""),
    requestTimeoutMs: number(1).default(30_000),
    /** Vectors kept in memory (by model and exact text). */
    cacheEntries: number(0).int("must be a whole number").default(10_000),
  })
  .prefault({});

export type EmbeddingsEndpointConfig = z.infer<typeof embeddingsEndpointSection>;

export function checkEmbeddingsEndpoint(value: EmbeddingsEndpointConfig, context: z.RefinementCtx): void {
  if ((value.baseUrl === null) !== (value.model === null)) {
    context.addIssue({
      code: "custom",
      path: ["embeddingsEndpoint", value.baseUrl === null ? "baseUrl" : "model"],
      message: "set both the embeddings base URL and model (RAGSCOPE_EMBEDDINGS_BASE_URL and RAGSCOPE_EMBEDDINGS_MODEL) to measure embedding similarity, or neither",
    });
  }
}

/** Null when no endpoint is configured. */
export function createConfiguredEmbeddings(config: Readonly<EmbeddingsEndpointConfig>): EmbeddingsClient | null {
  if (config.baseUrl === null || config.model === null) return null;
  return new EmbeddingsClient({ baseUrl: config.baseUrl, apiKey: config.apiKey, model: config.model, requestTimeoutMs: config.requestTimeoutMs, cacheEntries: config.cacheEntries });
}
