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
