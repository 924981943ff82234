/**
 * `setupRagscope`'s options and their defaults, resolved once at start.
 *
 * Defaults come from the environment the way the OTel SDK reads it
 * (OTEL_SERVICE_NAME, OTEL_EXPORTER_OTLP_ENDPOINT as a base URL to which the
 * signal path `/v1/traces` is appended — OTLP exporter specification,
 * "Endpoint URLs for OTLP/HTTP"), with RAGSCOPE_ENDPOINT taking precedence so a
 * service can send ragscope's spans somewhere else than its other telemetry.
 * Invalid options are a setup bug and throw with a message that says what to change.
 */
export type OtlpProtocol = "http/protobuf" | "http/json";

export interface RagscopeSetupOptions {
  /** Default: OTEL_SERVICE_NAME, else "rag-service". */
  serviceName?: string;
  /**
   * Collector base URL; spans are posted to `${endpoint}/v1/traces`.
   * Default: RAGSCOPE_ENDPOINT, else OTEL_EXPORTER_OTLP_ENDPOINT, else http://127.0.0.1:4318.
   */
  endpoint?: string;
  /** Default: http/protobuf. */
  protocol?: OtlpProtocol;
  /** Extra request headers, e.g. Authorization. */
  headers?: Record<string, string>;
  resourceAttributes?: Record<string, string>;
  /** Default true; false keeps ids, ranks and scores only (no chunk, prompt, answer or context text). */
  captureText?: boolean;
}

export interface ResolvedSetupOptions {
  readonly serviceName: string;
  /** Full URL of the traces endpoint. */
  readonly tracesUrl: string;
  readonly protocol: OtlpProtocol;
  readonly headers: Record<string, string>;
  readonly resourceAttributes: Record<string, string>;
  readonly captureText: boolean;
}

export const DEFAULT_SERVICE_NAME = "rag-service";
export const DEFAULT_ENDPOINT = "http://127.0.0.1:4318";
const PROTOCOLS: readonly OtlpProtocol[] = ["http/protobuf", "http/json"];

export function resolveSetupOptions(
  options: RagscopeSetupOptions = {},
  environment: NodeJS.ProcessEnv = process.env,
): ResolvedSetupOptions {
  const protocol = options.protocol ?? "http/protobuf";
  if (!PROTOCOLS.includes(protocol)) {
    throw new Error(`setupRagscope: protocol "${String(protocol)}" is not supported; use "http/protobuf" or "http/json"`);
  }
  const endpoint =
    options.endpoint ?? nonEmpty(environment.RAGSCOPE_ENDPOINT) ?? nonEmpty(environment.OTEL_EXPORTER_OTLP_ENDPOINT) ?? DEFAULT_ENDPOINT;
  return Object.freeze({
    serviceName: options.serviceName ?? nonEmpty(environment.OTEL_SERVICE_NAME) ?? DEFAULT_SERVICE_NAME,
    tracesUrl: tracesUrl(endpoint),
    protocol,
    headers: { ...options.headers },
    resourceAttributes: { ...options.resourceAttributes },
    captureText: options.captureText ?? true,
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
  return `${endpoint.replace(/\/+$/, "")}/v1/traces`;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value !== undefined && value.trim() !== "" ? value.trim() : undefined;
}
