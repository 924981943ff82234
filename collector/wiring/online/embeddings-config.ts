/**
 * The embeddings endpoints — the `embeddingsEndpoint` section of the settings
 * schema (collector/wiring/config/settings-schema.ts):
 *
 * - `baseUrl` + `model`: any OpenAI-compatible `/v1/embeddings` endpoint
 *   (OpenAI, vLLM, Ollama, `llama-server --embeddings`), for the auxiliary
 *   metric answer_embedding_similarity
 *   (evaluators/embeddings/embedding-similarity.ts);
 * - `tokenEmbeddingsUrl` + `tokenEmbeddingsModel`: llama.cpp's native
 *   `/embeddings` of a `llama-server --embeddings --pooling none`, one vector
 *   per token, for the BERTScore-style answer_bertscore_precision / _recall /
 *   _f1 (evaluators/embeddings/token-matching-similarity.ts);
 * - `sampleRate`: the share of traces with an Eval Case measured, drawn
 *   independently of the judge's sample (collector/09-judge/judge-dispatcher.ts).
 *   Default 1: an embedding costs a small fraction of a judge call, and only
 *   traces with a reference answer are measured at all.
 *
 * Measured in the judge workers, so only where the judge is enabled; when
 * neither endpoint is set nothing is embedded.
 */
import { z } from "zod";
import { decimalSetting } from "../config/decimal-setting.js";
import { wholeNumberSetting } from "../config/whole-number-setting.js";
import { EmbeddingsClient } from "../../../evaluators/embeddings/embeddings-client.js";
import { TokenEmbeddingsClient } from "../../../evaluators/embeddings/token-embeddings-client.js";

const number = (minimum: number) => decimalSetting(z.number().min(minimum, `must be at least ${minimum}`));

export const embeddingsEndpointSection = z
  .strictObject({
    baseUrl: z.url({ error: "must be a URL such as http://127.0.0.1:8081/v1" }).nullable().default(null),
    model: z.string().min(1).nullable().default(null),
    apiKey: z.string().default(""),
    requestTimeoutMs: number(1).default(30_000),
    /** Vectors kept in memory (by model and exact text). */
    cacheEntries: wholeNumberSetting({ minimum: 0 }).default(10_000),
    /** Share of the traces with an Eval Case that are measured, independent of the judge's sample. */
    sampleRate: decimalSetting(z.number().min(0, "must be at least 0").max(1, "must be at most 1")).default(1),
    /** llama-server's native per-token endpoint, e.g. http://127.0.0.1:8082/embeddings (started with --pooling none). */
    tokenEmbeddingsUrl: z.url({ error: "must be a URL such as http://127.0.0.1:8082/embeddings" }).nullable().default(null),
    tokenEmbeddingsModel: z.string().min(1).nullable().default(null),
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
  if ((value.tokenEmbeddingsUrl === null) !== (value.tokenEmbeddingsModel === null)) {
    context.addIssue({
      code: "custom",
      path: ["embeddingsEndpoint", value.tokenEmbeddingsUrl === null ? "tokenEmbeddingsUrl" : "tokenEmbeddingsModel"],
      message: "set both the token embeddings URL and model (RAGSCOPE_TOKEN_EMBEDDINGS_URL and RAGSCOPE_TOKEN_EMBEDDINGS_MODEL) to measure BERTScore-style token matching, or neither",
    });
  }
}

export interface ConfiguredEmbeddings {
  similarity: EmbeddingsClient | null;
  tokenMatching: TokenEmbeddingsClient | null;
  sampleRate: number;
  describe: string;
}

/** Null when no endpoint is configured. */
export function createConfiguredEmbeddings(config: Readonly<EmbeddingsEndpointConfig>): ConfiguredEmbeddings | null {
  const similarity =
    config.baseUrl === null || config.model === null ? null : new EmbeddingsClient({ baseUrl: config.baseUrl, apiKey: config.apiKey, model: config.model, requestTimeoutMs: config.requestTimeoutMs, cacheEntries: config.cacheEntries });
  const tokenMatching =
    config.tokenEmbeddingsUrl === null || config.tokenEmbeddingsModel === null
      ? null
      : new TokenEmbeddingsClient({ url: config.tokenEmbeddingsUrl, model: config.tokenEmbeddingsModel, apiKey: config.apiKey, requestTimeoutMs: config.requestTimeoutMs });
  if (similarity === null && tokenMatching === null) return null;
  const parts = [
    similarity === null ? null : `embedding similarity with ${similarity.model} at ${similarity.baseUrl}`,
    tokenMatching === null ? null : `BERTScore-style token matching with ${tokenMatching.model} at ${tokenMatching.url}`,
  ].filter((part): part is string => part !== null);
  const rate = config.sampleRate === 1 ? "" : ` (sample rate ${config.sampleRate})`;
  return { similarity, tokenMatching, sampleRate: config.sampleRate, describe: `${parts.join("; ")}${rate}` };
}
