/**
 * Every RAGSCOPE_* environment variable the project reads, so that a name it
 * does not read is an error at start instead of being ignored: in Kubernetes
 * or Compose every setting is environment, and a misspelled name
 * (RAGSCOPE_KAFKA_BROKER) silently left its setting at the default
 * (localhost:9092), where a config file's unknown key was already refused.
 *
 * The settings' own variables are in setting-sources.ts; the others — read by
 * the command line outside the settings, the SDK (instrumentation/), the
 * experiments' lineage, the deployment files, the tests and the benchmarks —
 * are listed here, since one shell or container may hold them all.
 * test/unit/collector/known-variables.test.ts fails when a RAGSCOPE_* name
 * appears in the project without being listed.
 */
import { LINEAGE_FIELDS } from "../../../experiments/lineage.js";
import { environmentVariables } from "./setting-sources.js";
import { closestNames } from "../closest-names.js";

/** RAGSCOPE_* variables read outside the settings schema, and by what. */
export const otherVariables: Readonly<Record<string, string>> = {
  // The command line, outside the settings.
  RAGSCOPE_CONFIG: "command line: the config file",
  RAGSCOPE_DEBUG: "command line: stack traces of unexpected errors",
  RAGSCOPE_UI_TOKENS: "serve: the web UI's reviewer tokens",
  RAGSCOPE_UI_TENANT_TOKENS: "serve: the web UI's hashed reviewer tokens per tenant",
  RAGSCOPE_UI_BEHIND_TLS: "serve: a proxy serves the web UI over HTTPS (Secure session cookie)",
  RAGSCOPE_READ_API_TOKEN: "eval --read-api: the read API's token",
  // The SDK (instrumentation/setup-options.ts), often in the same environment as the command line.
  RAGSCOPE_ENDPOINT: "SDK",
  RAGSCOPE_HEADERS: "SDK",
  RAGSCOPE_PROTOCOL: "SDK",
  RAGSCOPE_SERVICE_NAME: "SDK",
  RAGSCOPE_CAPTURE_TEXT: "SDK",
  RAGSCOPE_CAPTURE_TEXT_STAGES: "SDK",
  RAGSCOPE_MAX_TEXT_LENGTH: "SDK",
  RAGSCOPE_REDACTION: "SDK",
  RAGSCOPE_REDACTION_HASH_KEY: "SDK",
  RAGSCOPE_ATTRIBUTE_COUNT_LIMIT: "SDK",
  RAGSCOPE_EXPORT_WORKER: "SDK",
  RAGSCOPE_FLUSH_ON_EXIT: "SDK",
  RAGSCOPE_MAX_CONCURRENT_EXPORTS: "SDK",
  RAGSCOPE_MAX_EXPORT_BATCH_BYTES: "SDK",
  RAGSCOPE_MAX_QUEUE_BYTES: "SDK",
  RAGSCOPE_SHUTDOWN_TIMEOUT_MS: "SDK",
  // Experiments' run lineage (experiments/lineage.ts).
  ...Object.fromEntries(LINEAGE_FIELDS.map((field) => [`RAGSCOPE_RUN_${field.toUpperCase()}`, "experiments: run lineage"])),
  // Deployment files (deploy/): Grafana's data source provisioning and the compose file's published address.
  RAGSCOPE_CLICKHOUSE_HOST: "deploy: Grafana's ClickHouse data source",
  RAGSCOPE_PUBLISH_ADDRESS: "deploy/docker-compose.yaml: the host address the stack's ports are published on",
  // The project's tests.
  RAGSCOPE_TEST_CLICKHOUSE_URL: "tests",
  RAGSCOPE_TEST_CLICKHOUSE_USER: "tests",
  RAGSCOPE_TEST_CLICKHOUSE_PASSWORD: "tests",
  RAGSCOPE_ATTACK_REPORT: "tests",
  RAGSCOPE_CHROMIUM: "tests",
  RAGSCOPE_LLAMA_SERVER_CACHE: "tests",
  RAGSCOPE_OTELCOL: "test data: the OpenTelemetry Collector binary test/data/otel-collector-kafka/record.ts runs",
};

/** Families of names: the benchmarks' settings and Grafana's per-tenant data source passwords (deploy/grafana/tenants). */
export const variablePrefixes: readonly string[] = ["RAGSCOPE_BENCH_", "RAGSCOPE_GRAFANA_"];

const prefix = "RAGSCOPE_";

/**
 * Variables Kubernetes sets for every Service of the namespace (service links, on unless the pod sets
 * enableServiceLinks: false): the Service ragscope-receiver gives RAGSCOPE_RECEIVER_SERVICE_HOST,
 * RAGSCOPE_RECEIVER_PORT=tcp://10.0.0.1:4318, RAGSCOPE_RECEIVER_PORT_4318_TCP_ADDR and so on. Recognised by
 * their shape, and RAGSCOPE_<NAME>_PORT also by its value, so a misspelled setting ending in _PORT is still found.
 */
function isServiceLink(name: string, value: string): boolean {
  if (/_SERVICE_HOST$|_SERVICE_PORT(_[A-Z0-9_]+)?$|_PORT_\d+_(TCP|UDP|SCTP)(_(PROTO|PORT|ADDR))?$/.test(name)) return true;
  return name.endsWith("_PORT") && /^(tcp|udp|sctp):\/\//.test(value);
}

export function isKnownVariable(name: string): boolean {
  return name in environmentVariables || name in otherVariables || variablePrefixes.some((family) => name.startsWith(family));
}

/** The known names closest to a misspelled one, best first (at most three), compared without their common prefix. */
export function closestVariables(name: string): string[] {
  const known = [...Object.keys(environmentVariables), ...Object.keys(otherVariables)].map((variable) => variable.slice(prefix.length));
  return closestNames(name.slice(prefix.length), known).map((variable) => `${prefix}${variable}`);
}

/**
 * A problem for each RAGSCOPE_* variable of the environment that the project does not read. The value is not
 * shown: it may be a secret.
 */
export function unknownVariableProblems(environment: Readonly<Record<string, string | undefined>>): string[] {
  const problems: string[] = [];
  for (const [name, value] of Object.entries(environment)) {
    if (!name.startsWith(prefix) || value === undefined || isKnownVariable(name) || isServiceLink(name, value)) continue;
    const closest = closestVariables(name);
    problems.push(
      `environment variable ${name}: ragscope reads no variable of that name, so it would be ignored and its setting left at the default${closest.length > 0 ? ` — did you mean ${closest.join(" or ")}?` : "."} ` +
        `Rename or unset it (README, "Configuration", lists the variables; \`ragscope config\` shows where each value came from)`,
    );
  }
  return problems.sort();
}
