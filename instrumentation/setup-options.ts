/**
 * `setupRagscope`'s options and their defaults, resolved once at start.
 *
 * Options win over environment variables, which win over defaults. The
 * variables are ragscope's own (RAGSCOPE_*) and the standard OTel ones the way
 * the OTel SDK reads them (OTEL_SERVICE_NAME; OTEL_EXPORTER_OTLP_ENDPOINT as a
 * base URL to which the signal path `/v1/traces` is appended — OTLP exporter
 * specification, "Endpoint URLs for OTLP/HTTP"; OTEL_EXPORTER_OTLP_PROTOCOL;
 * OTEL_TRACES_SAMPLER=traceidratio with OTEL_TRACES_SAMPLER_ARG). RAGSCOPE_*
 * takes precedence so a service can send ragscope's spans somewhere else than
 * its other telemetry.
 *
 * Invalid options are a setup bug and throw with a message that names the
 * option or variable and says what to change.
 */
import { availableParallelism } from "node:os";
import { BOOLEAN_WORDS, parseBooleanWord } from "../core/boolean-words.js";
import { RagStage, type RagStageName } from "../contracts/span-attributes.js";
import { DEFAULT_MAX_TEXT_LENGTH, type StageSwitches } from "./configuration.js";
import type { ExportLimits } from "./export/ragscope-span-processor.js";
import type { RedactionMode, RedactionOptions } from "./redaction/redactor.js";

export type OtlpProtocol = "http/protobuf" | "http/json";

export interface RagscopeSetupOptions {
  /** Default: RAGSCOPE_SERVICE_NAME, else OTEL_SERVICE_NAME, else "rag-service". */
  serviceName?: string;
  /**
   * Collector base URL; spans are posted to `${endpoint}/v1/traces` (an endpoint that already ends in `/v1/traces` is taken as it is).
   * Default: RAGSCOPE_ENDPOINT, else OTEL_EXPORTER_OTLP_ENDPOINT, else http://127.0.0.1:4318.
   */
  endpoint?: string;
  /** Default: RAGSCOPE_PROTOCOL, else OTEL_EXPORTER_OTLP_TRACES_PROTOCOL / OTEL_EXPORTER_OTLP_PROTOCOL, else http/protobuf. */
  protocol?: OtlpProtocol;
  /** Extra request headers, e.g. Authorization. Default: RAGSCOPE_HEADERS (`key=value,key=value`). */
  headers?: Record<string, string>;
  resourceAttributes?: Record<string, string>;
  /** Default true (RAGSCOPE_CAPTURE_TEXT); false keeps ids, ranks and scores only (no chunk, prompt, answer or context text). */
  captureText?: boolean;
  /** Per-stage overrides, e.g. `{ generate: false }`. Default: RAGSCOPE_CAPTURE_TEXT_STAGES (`generate=false,retrieve=true`). */
  captureTextByStage?: StageSwitches;
  /** Longest text written into one attribute. Default: RAGSCOPE_MAX_TEXT_LENGTH, else 32768. */
  maxTextLength?: number;
  /**
   * Fraction of requests traced, decided by trace id so a request keeps all its
   * spans. Default: RAGSCOPE_SAMPLE_RATE, else OTEL_TRACES_SAMPLER_ARG when
   * OTEL_TRACES_SAMPLER is (parentbased_)traceidratio, else 1.
   */
  sampleRate?: number;
  /**
   * Redaction before export; `false` turns it off. Default: the seed's
   * sensitive-data patterns, replaced (RAGSCOPE_REDACTION = replace | hash | off;
   * RAGSCOPE_REDACTION_HASH_KEY for hash mode).
   */
  redaction?: RedactionOptions | false;
  /**
   * Export everything recorded when the process is about to end (the event
   * loop drained, SIGTERM, SIGINT), so short-lived scripts lose nothing.
   * Default true (RAGSCOPE_FLUSH_ON_EXIT); false for an application that calls
   * `shutdown()` from its own exit handling.
   */
  flushOnExit?: boolean;
  /**
   * The export queue, batches, concurrency and timeouts (export/ragscope-span-processor.ts);
   * each one not given comes from its variable (OTEL_BSP_*, RAGSCOPE_MAX_QUEUE_BYTES,
   * RAGSCOPE_MAX_EXPORT_BATCH_BYTES, RAGSCOPE_MAX_CONCURRENT_EXPORTS,
   * RAGSCOPE_SHUTDOWN_TIMEOUT_MS) or its default (DEFAULT_EXPORT_LIMITS).
   */
  exportLimits?: Partial<ExportLimits>;
  /**
   * Redact, encode and send on a worker thread (export/worker-span-exporter.ts),
   * off the application's thread; false keeps all of it on the application's
   * thread. Default (RAGSCOPE_EXPORT_WORKER unset): the worker when the machine
   * has more than two cores (`os.availableParallelism()`). The worker costs
   * more CPU in all (the copy to the thread), so it pays only with a core to
   * spare: on 2 shared cores the application ended sooner without it
   * (test/bench/sdk-export.bench.ts).
   */
  exportInWorker?: boolean;
}

export interface ResolvedSetupOptions {
  readonly serviceName: string;
  /** Full URL of the traces endpoint. */
  readonly tracesUrl: string;
  readonly protocol: OtlpProtocol;
  readonly headers: Record<string, string>;
  readonly resourceAttributes: Record<string, string>;
  readonly captureText: boolean;
  readonly captureTextByStage: StageSwitches;
  readonly maxTextLength: number;
  readonly sampleRate: number;
  /** null when redaction is off. */
  readonly redaction: RedactionOptions | null;
  readonly flushOnExit: boolean;
  /** The limits given as options; the processor fills in the rest from variables and defaults. */
  readonly exportLimits: Partial<ExportLimits>;
  readonly exportInWorker: boolean;
}

export const DEFAULT_SERVICE_NAME = "rag-service";
/** The export worker is the default only above this many cores: it needs one to itself to pay off. */
export const EXPORT_WORKER_MIN_CORES = 2;
export const DEFAULT_ENDPOINT = "http://127.0.0.1:4318";
const PROTOCOLS: readonly OtlpProtocol[] = ["http/protobuf", "http/json"];
const STAGES: readonly string[] = Object.values(RagStage);

export function resolveSetupOptions(
  options: RagscopeSetupOptions = {},
  environment: NodeJS.ProcessEnv = process.env,
): ResolvedSetupOptions {
  const protocolVariable = ["RAGSCOPE_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"].find(
    (name) => nonEmpty(environment[name]) !== undefined,
  );
  const protocol = options.protocol ?? (protocolVariable ? nonEmpty(environment[protocolVariable]) : undefined) ?? "http/protobuf";
  if (!PROTOCOLS.includes(protocol as OtlpProtocol)) {
    const source = options.protocol !== undefined ? "protocol" : protocolVariable;
    throw new Error(`setupRagscope: ${source} "${String(protocol)}" is not supported; use "http/protobuf" or "http/json"`);
  }
  const endpoint =
    options.endpoint ?? nonEmpty(environment.RAGSCOPE_ENDPOINT) ?? nonEmpty(environment.OTEL_EXPORTER_OTLP_ENDPOINT) ?? DEFAULT_ENDPOINT;
  return Object.freeze({
    serviceName: options.serviceName ?? nonEmpty(environment.RAGSCOPE_SERVICE_NAME) ?? nonEmpty(environment.OTEL_SERVICE_NAME) ?? DEFAULT_SERVICE_NAME,
    tracesUrl: tracesUrl(endpoint),
    protocol: protocol as OtlpProtocol,
    headers: { ...parseHeaders(environment.RAGSCOPE_HEADERS), ...options.headers },
    resourceAttributes: { ...options.resourceAttributes },
    captureText: options.captureText ?? parseBoolean("RAGSCOPE_CAPTURE_TEXT", environment.RAGSCOPE_CAPTURE_TEXT) ?? true,
    captureTextByStage: options.captureTextByStage ?? parseStageSwitches(environment.RAGSCOPE_CAPTURE_TEXT_STAGES),
    maxTextLength: resolveMaxTextLength(options.maxTextLength, environment.RAGSCOPE_MAX_TEXT_LENGTH),
    sampleRate: resolveSampleRate(options.sampleRate, environment),
    redaction: resolveRedaction(options.redaction, environment),
    flushOnExit: options.flushOnExit ?? parseBoolean("RAGSCOPE_FLUSH_ON_EXIT", environment.RAGSCOPE_FLUSH_ON_EXIT) ?? true,
    exportLimits: { ...options.exportLimits },
    exportInWorker: options.exportInWorker ?? parseBoolean("RAGSCOPE_EXPORT_WORKER", environment.RAGSCOPE_EXPORT_WORKER) ?? availableParallelism() > EXPORT_WORKER_MIN_CORES,
  });
}

function tracesUrl(endpoint: string): string {
  let base: URL;
  try {
    base = new URL(endpoint);
  } catch {
    throw new Error(`setupRagscope: endpoint "${endpoint}" is not a URL; give the collector's base URL, e.g. ${DEFAULT_ENDPOINT}`);
  }
  if (base.protocol !== "http:" && base.protocol !== "https:") {
    throw new Error(`setupRagscope: endpoint "${endpoint}" must be an http:// or https:// URL`);
  }
  const trimmed = endpoint.replace(/\/+$/, "");
  // The address `ragscope serve` prints is the full traces URL; copied as the endpoint it used to become
  // …/v1/traces/v1/traces (404, every span lost). No receiver serves that path, so the suffix is not doubled.
  return trimmed.endsWith("/v1/traces") ? trimmed : `${trimmed}/v1/traces`;
}

function resolveSampleRate(option: number | undefined, environment: NodeJS.ProcessEnv): number {
  if (option !== undefined) return checkRate("sampleRate", option);
  const own = nonEmpty(environment.RAGSCOPE_SAMPLE_RATE);
  if (own !== undefined) return checkRate("RAGSCOPE_SAMPLE_RATE", Number(own));
  const sampler = nonEmpty(environment.OTEL_TRACES_SAMPLER);
  const argument = nonEmpty(environment.OTEL_TRACES_SAMPLER_ARG);
  if ((sampler === "traceidratio" || sampler === "parentbased_traceidratio") && argument !== undefined) {
    return checkRate("OTEL_TRACES_SAMPLER_ARG", Number(argument));
  }
  if (sampler === "always_off" || sampler === "parentbased_always_off") return 0;
  return 1;
}

function checkRate(source: string, rate: number): number {
  if (!(Number.isFinite(rate) && rate >= 0 && rate <= 1)) {
    throw new Error(`setupRagscope: ${source} must be a number between 0 and 1 (1 traces every request), got ${String(rate)}`);
  }
  return rate;
}

function resolveMaxTextLength(option: number | undefined, variable: string | undefined): number {
  const source = option !== undefined ? "maxTextLength" : "RAGSCOPE_MAX_TEXT_LENGTH";
  const value = option ?? (nonEmpty(variable) !== undefined ? Number(variable) : DEFAULT_MAX_TEXT_LENGTH);
  if (!(Number.isInteger(value) && value > 0)) throw new Error(`setupRagscope: ${source} must be a positive whole number of characters, got ${String(value)}`);
  return value;
}

function resolveRedaction(option: RedactionOptions | false | undefined, environment: NodeJS.ProcessEnv): RedactionOptions | null {
  if (option === false) return null;
  const variable = nonEmpty(environment.RAGSCOPE_REDACTION);
  if (variable !== undefined && !["off", "replace", "hash"].includes(variable)) {
    throw new Error(`setupRagscope: RAGSCOPE_REDACTION "${variable}" is not supported; use "replace", "hash" or "off"`);
  }
  if (option === undefined && variable === "off") return null;
  const hashKey = nonEmpty(environment.RAGSCOPE_REDACTION_HASH_KEY);
  const mode: RedactionMode | undefined = option?.mode ?? (variable === "replace" || variable === "hash" ? variable : undefined);
  return {
    ...option,
    ...(mode !== undefined ? { mode } : {}),
    ...(option?.hashKey === undefined && hashKey !== undefined ? { hashKey } : {}),
  };
}

function parseBoolean(name: string, value: string | undefined): boolean | undefined {
  const trimmed = nonEmpty(value);
  if (trimmed === undefined) return undefined;
  const parsed = parseBooleanWord(trimmed);
  if (parsed !== null) return parsed;
  throw new Error(`setupRagscope: ${name} must be ${BOOLEAN_WORDS}, got "${value}"`);
}

/** `generate=false,retrieve=true` → `{ generate: false, retrieve: true }`. */
function parseStageSwitches(value: string | undefined): StageSwitches {
  const switches: StageSwitches = {};
  for (const entry of (nonEmpty(value) ?? "").split(",").filter((part) => part.trim() !== "")) {
    const [stage, setting] = entry.split("=").map((part) => part.trim());
    if (stage === undefined || !STAGES.includes(stage)) {
      throw new Error(`setupRagscope: RAGSCOPE_CAPTURE_TEXT_STAGES names an unknown stage "${stage ?? ""}"; stages are ${STAGES.join(", ")}`);
    }
    const enabled = parseBoolean(`RAGSCOPE_CAPTURE_TEXT_STAGES (${stage})`, setting);
    if (enabled === undefined) throw new Error(`setupRagscope: RAGSCOPE_CAPTURE_TEXT_STAGES needs stage=true|false, got "${entry}"`);
    switches[stage as RagStageName] = enabled;
  }
  return switches;
}

/** `key=value,key=value` (the OTEL_EXPORTER_OTLP_HEADERS format, values URL-encoded). */
function parseHeaders(value: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const entry of (nonEmpty(value) ?? "").split(",")) {
    const separator = entry.indexOf("=");
    if (separator <= 0) continue;
    headers[entry.slice(0, separator).trim()] = decodeURIComponent(entry.slice(separator + 1).trim());
  }
  return headers;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value !== undefined && value.trim() !== "" ? value.trim() : undefined;
}
