import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { resolveSetupOptions } from "../../../instrumentation/index.js";

describe("resolveSetupOptions", () => {
  test("defaults without options or environment", () => {
    const resolved = resolveSetupOptions({}, {});
    assert.equal(resolved.serviceName, "rag-service");
    assert.equal(resolved.tracesUrl, "http://127.0.0.1:4318/v1/traces");
    assert.equal(resolved.protocol, "http/protobuf");
    assert.equal(resolved.captureText, true);
    assert.deepEqual(resolved.headers, {});
  });

  test("environment: OTEL_SERVICE_NAME, and RAGSCOPE_ENDPOINT before OTEL_EXPORTER_OTLP_ENDPOINT", () => {
    const environment = {
      OTEL_SERVICE_NAME: "answers",
      RAGSCOPE_ENDPOINT: "http://ragscope:4318",
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://otel:4318",
    };
    const resolved = resolveSetupOptions({}, environment);
    assert.equal(resolved.serviceName, "answers");
    assert.equal(resolved.tracesUrl, "http://ragscope:4318/v1/traces");
    assert.equal(resolveSetupOptions({}, { OTEL_EXPORTER_OTLP_ENDPOINT: "https://otel:4318/base/" }).tracesUrl, "https://otel:4318/base/v1/traces");
    assert.equal(resolveSetupOptions({}, { RAGSCOPE_ENDPOINT: " " }).tracesUrl, "http://127.0.0.1:4318/v1/traces", "blank is unset");
  });

  test("an endpoint that is already the traces URL (as `ragscope serve` prints it) is not given /v1/traces twice", () => {
    assert.equal(resolveSetupOptions({}, { RAGSCOPE_ENDPOINT: "http://127.0.0.1:4318/v1/traces" }).tracesUrl, "http://127.0.0.1:4318/v1/traces");
    assert.equal(resolveSetupOptions({ endpoint: "https://collector/otlp/v1/traces/" }, {}).tracesUrl, "https://collector/otlp/v1/traces");
    assert.equal(resolveSetupOptions({ endpoint: "https://collector/v1/traces-proxy" }, {}).tracesUrl, "https://collector/v1/traces-proxy/v1/traces", "only the whole path segment counts");
  });

  test("options win over the environment", () => {
    const resolved = resolveSetupOptions(
      { serviceName: "explicit", endpoint: "http://collector:9000//", protocol: "http/json", captureText: false },
      { OTEL_SERVICE_NAME: "from-env", RAGSCOPE_ENDPOINT: "http://ragscope:4318" },
    );
    assert.equal(resolved.serviceName, "explicit");
    assert.equal(resolved.tracesUrl, "http://collector:9000/v1/traces");
    assert.equal(resolved.protocol, "http/json");
    assert.equal(resolved.captureText, false);
  });

  test("invalid options fail at setup with a message that says what to change", () => {
    assert.throws(() => resolveSetupOptions({ protocol: "grpc" as "http/json" }, {}), /use "http\/protobuf" or "http\/json"/);
    assert.throws(() => resolveSetupOptions({ endpoint: "collector:4318" }, {}), /http:\/\/ or https:\/\//);
    assert.throws(() => resolveSetupOptions({ endpoint: "not a url" }, {}), /is not a URL/);
  });
});

describe("resolveSetupOptions: sampling, redaction, capture and the preload's variables", () => {
  test("defaults: everything sampled, redaction on (replace), text captured, 32 Ki characters per attribute", () => {
    const resolved = resolveSetupOptions({}, {});
    assert.equal(resolved.sampleRate, 1);
    assert.deepEqual(resolved.redaction, {});
    assert.deepEqual(resolved.captureTextByStage, {});
    assert.equal(resolved.maxTextLength, 32_768);
  });

  test("RAGSCOPE_* variables, and the standard OTEL_* ones", () => {
    const resolved = resolveSetupOptions(
      {},
      {
        RAGSCOPE_SERVICE_NAME: "bot",
        OTEL_SERVICE_NAME: "other",
        RAGSCOPE_SAMPLE_RATE: "0.25",
        RAGSCOPE_REDACTION: "hash",
        RAGSCOPE_REDACTION_HASH_KEY: "k",
        RAGSCOPE_CAPTURE_TEXT: "false",
        RAGSCOPE_CAPTURE_TEXT_STAGES: "generate=true, retrieve=false",
        RAGSCOPE_MAX_TEXT_LENGTH: "100",
        RAGSCOPE_HEADERS: "authorization=Bearer%20abc,x-tenant=acme",
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      },
    );
    assert.equal(resolved.serviceName, "bot");
    assert.equal(resolved.sampleRate, 0.25);
    assert.deepEqual(resolved.redaction, { mode: "hash", hashKey: "k" });
    assert.equal(resolved.captureText, false);
    assert.deepEqual(resolved.captureTextByStage, { generate: true, retrieve: false });
    assert.equal(resolved.maxTextLength, 100);
    assert.deepEqual(resolved.headers, { authorization: "Bearer abc", "x-tenant": "acme" });
    assert.equal(resolved.protocol, "http/json");
    assert.equal(resolveSetupOptions({}, { OTEL_TRACES_SAMPLER: "parentbased_traceidratio", OTEL_TRACES_SAMPLER_ARG: "0.1" }).sampleRate, 0.1);
    assert.equal(resolveSetupOptions({}, { RAGSCOPE_REDACTION: "off" }).redaction, null);
    assert.equal(resolveSetupOptions({ redaction: false }, { RAGSCOPE_REDACTION: "hash" }).redaction, null);
  });

  test("the export worker: RAGSCOPE_EXPORT_WORKER decides, the option wins over it", () => {
    assert.equal(resolveSetupOptions({}, { RAGSCOPE_EXPORT_WORKER: "true" }).exportInWorker, true);
    assert.equal(resolveSetupOptions({}, { RAGSCOPE_EXPORT_WORKER: "false" }).exportInWorker, false);
    assert.equal(resolveSetupOptions({ exportInWorker: true }, { RAGSCOPE_EXPORT_WORKER: "false" }).exportInWorker, true);
    assert.throws(() => resolveSetupOptions({}, { RAGSCOPE_EXPORT_WORKER: "sometimes" }), /RAGSCOPE_EXPORT_WORKER must be true or false/);
  });

  test("bad values name the variable and say what to change", () => {
    assert.throws(() => resolveSetupOptions({}, { RAGSCOPE_SAMPLE_RATE: "2" }), /RAGSCOPE_SAMPLE_RATE must be a number between 0 and 1/);
    assert.throws(() => resolveSetupOptions({ sampleRate: -1 }, {}), /sampleRate must be a number between 0 and 1/);
    assert.throws(() => resolveSetupOptions({}, { RAGSCOPE_REDACTION: "mask" }), /use "replace", "hash" or "off"/);
    assert.throws(() => resolveSetupOptions({}, { RAGSCOPE_CAPTURE_TEXT_STAGES: "answer=false" }), /unknown stage "answer"/);
    assert.throws(() => resolveSetupOptions({}, { RAGSCOPE_CAPTURE_TEXT: "maybe" }), /must be true or false/);
    assert.throws(() => resolveSetupOptions({}, { OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" }), /OTEL_EXPORTER_OTLP_PROTOCOL "grpc" is not supported/);
    assert.throws(() => resolveSetupOptions({}, { RAGSCOPE_MAX_TEXT_LENGTH: "0" }), /positive whole number/);
  });
});
