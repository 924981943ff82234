/**
 * The one settings schema, parsed once: precedence of the four sources, the
 * origin kept for each value, typed frozen slices for the components, and
 * messages that name the source to fix.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { resolveSettings } from "../../../collector/wiring/config/load-settings.js";
import { collectorSettings, judgeEndpointSettings, onlineSettings } from "../../../collector/wiring/config/settings-schema.js";
import { memoryBounds } from "../../../collector/wiring/config/collector-config.js";

const file = (document: unknown) => ({ path: "/etc/ragscope.yaml", document });

describe("settings", () => {
  test("flags over the command's own values over environment over config file over defaults, with each origin", () => {
    const resolved = resolveSettings({
      file: file({ receiver: { port: 1000, host: "0.0.0.0" }, assembler: { quietPeriodMs: 10, maxOpenSpans: 300_000 }, judge: { enabled: true } }),
      environment: { RAGSCOPE_RECEIVER_PORT: "2000", RAGSCOPE_QUIET_PERIOD_MS: "20", RAGSCOPE_SINK_BATCH: "" },
      fixed: { "receiver.port": 3000, "assembler.quietPeriodMs": 30 },
      command: "demo",
      flags: { "receiver.port": { value: "4000", flag: "--port" }, "observe.port": { value: undefined, flag: "--metrics-port" } },
    });
    assert.ok(resolved.ok, resolved.ok ? "" : resolved.error.join("\n"));
    const { settings, origins } = resolved.value;
    assert.equal(settings.receiver.port, 4000);
    assert.deepEqual(origins.get("receiver.port"), { kind: "flag", flag: "--port" });
    assert.equal(settings.assembler.quietPeriodMs, 30);
    assert.deepEqual(origins.get("assembler.quietPeriodMs"), { kind: "command", command: "demo" });
    assert.equal(settings.receiver.host, "0.0.0.0");
    assert.deepEqual(origins.get("receiver.host"), { kind: "file", file: "/etc/ragscope.yaml" });
    assert.equal(settings.judge.enabled, true);
    // An empty variable and a flag not given set nothing.
    assert.equal(settings.sink.maxBatch, 500);
    assert.equal(origins.get("sink.maxBatch"), undefined);
    assert.equal(settings.observe.port, 9464);
  });

  test("components get frozen slices holding only their sections", () => {
    const resolved = resolveSettings({ environment: { RAGSCOPE_JUDGE_API_KEY: "key", RAGSCOPE_KAFKA_BROKERS: "a:1,b:2" } });
    assert.ok(resolved.ok);
    const collector = collectorSettings(resolved.value.settings);
    assert.deepEqual(Object.keys(collector).sort(), ["assembler", "clickhouse", "kafka", "memory", "observe", "queue", "receiver", "sink"]);
    assert.ok(!("judgeEndpoint" in collector), "the pipeline never sees the judge's key");
    assert.deepEqual(Object.keys(onlineSettings(resolved.value.settings)).sort(), ["alerts", "embeddingsEndpoint", "judge", "sampling"]);
    assert.equal(judgeEndpointSettings(resolved.value.settings).apiKey, "key");
    assert.ok(Object.isFrozen(collector) && Object.isFrozen(collector.kafka) && Object.isFrozen(collector.kafka.brokers));
    assert.throws(() => {
      (collector.kafka.brokers as string[]).push("c:3");
    }, TypeError);
  });

  test("a config file's values are checked by the same schema, each problem with the key's path; the other sources keep their names", () => {
    const resolved = resolveSettings({
      file: file({ kafka: { brokers: ["ok:9092", "broken"], compression: "brotli" }, alerts: { webhookUrls: ["not a url"] }, sampling: "all" }),
      environment: { RAGSCOPE_MAX_HEAP_MB: "lots", RAGSCOPE_SAMPLE_RATES_BY_ROUTE: "/refund" },
    });
    assert.ok(!resolved.ok);
    assert.deepEqual(resolved.error.sort(), [
      'config file /etc/ragscope.yaml, key sampling: must be a mapping of settings, e.g. "sampling:" with one "name: value" per line below it',
      "config file /etc/ragscope.yaml, key alerts.webhookUrls[0]: must be a URL such as https://alerts.example.com/hook",
      "config file /etc/ragscope.yaml, key kafka.brokers[1]: must be host:port, e.g. kafka:9092 (separate several brokers with commas)",
      "config file /etc/ragscope.yaml, key kafka.compression: must be none, gzip, snappy, lz4 or zstd",
      'environment variable RAGSCOPE_SAMPLE_RATES_BY_ROUTE: "/refund" is not name=value; write comma-separated pairs such as checkout=1,search=0.05',
      'environment variable RAGSCOPE_MAX_HEAP_MB: must be a whole number of at least 32 in decimal digits only (no sign, point, exponent, hex or spaces), not "lots"',
    ].sort());
  });

  test("decimal settings (rates, shares, prices, timeouts) take plain decimals from a variable; a file's YAML number stays a number", () => {
    const refused = resolveSettings({
      environment: { RAGSCOPE_SAMPLE_RATE: "0x1", RAGSCOPE_EMBEDDINGS_SAMPLE_RATE: "1e-1", RAGSCOPE_JUDGE_TIMEOUT_MS: " 500", RAGSCOPE_ALERT_CONFIDENCE: "Infinity" },
    });
    assert.ok(!refused.ok);
    const form = "must be a number written as digits with an optional leading minus and fraction, e.g. 0.5 (no exponent, hex, + or Infinity)";
    assert.deepEqual(refused.error.sort(), [
      `environment variable RAGSCOPE_ALERT_CONFIDENCE: ${form}, not "Infinity"`,
      `environment variable RAGSCOPE_EMBEDDINGS_SAMPLE_RATE: ${form}, not "1e-1"`,
      `environment variable RAGSCOPE_JUDGE_TIMEOUT_MS: ${form}, not " 500"`,
      `environment variable RAGSCOPE_SAMPLE_RATE: ${form}, not "0x1"`,
    ]);
    const accepted = resolveSettings({ environment: { RAGSCOPE_SAMPLE_RATE: "0.25", RAGSCOPE_SAMPLE_RATES_BY_ROUTE: "checkout=1,search=0.05" }, file: file({ embeddingsEndpoint: { sampleRate: 1e-1 } }) });
    assert.ok(accepted.ok, accepted.ok ? "" : accepted.error.join("\n"));
    assert.equal(accepted.value.settings.sampling.defaultRate, 0.25);
    assert.deepEqual(accepted.value.settings.sampling.routes, { checkout: 1, search: 0.05 });
    assert.equal(accepted.value.settings.embeddingsEndpoint.sampleRate, 0.1);
    const outOfRange = resolveSettings({ environment: { RAGSCOPE_SAMPLE_RATE: "1.5" } });
    assert.ok(!outOfRange.ok);
    assert.deepEqual(outOfRange.error, ["environment variable RAGSCOPE_SAMPLE_RATE: must be a rate between 0 and 1"]);
  });

  test("a file that is not a mapping, and unknown keys, say what the file may hold", () => {
    const list = resolveSettings({ file: file(["kafka"]) });
    assert.ok(!list.ok);
    assert.match(list.error[0]!, /^config file \/etc\/ragscope\.yaml: must be a mapping of sections \(receiver, clickhouse, .*judgeEndpoint\)/);
    const unknown = resolveSettings({ file: file({ recevier: { port: 1 }, judgeEndpoint: { apiKey: "k", model: "m", baseUrl: "https://llm.example.com", temperature: 0 } }) });
    assert.ok(!unknown.ok);
    assert.ok(unknown.error.includes("config file /etc/ragscope.yaml, key recevier: unknown section; the sections are receiver, clickhouse, assembler, queue, sink, kafka, memory, observe, sampling, judge, alerts, embeddingsEndpoint, judgeEndpoint"), unknown.error.join("\n"));
    assert.ok(unknown.error.some((line) => line.startsWith("config file /etc/ragscope.yaml, key judgeEndpoint.temperature: unknown setting; the settings of judgeEndpoint are baseUrl, model, apiKey")), unknown.error.join("\n"));
  });

  test("an empty config file sets nothing", () => {
    const resolved = resolveSettings({ file: file(null) });
    assert.ok(resolved.ok);
    assert.equal(resolved.value.origins.size, 0);
  });
});

describe("memory bounds", () => {
  const MEBIBYTE = 1024 * 1024;
  const parsed = (values: Record<string, unknown>) => {
    const resolved = resolveSettings({ fixed: values });
    assert.ok(resolved.ok, resolved.ok ? "" : resolved.error.join("\n"));
    return resolved.value.settings;
  };

  test("unset, each byte bound is its default on a large heap and a share of a small one; a configured bound is kept", () => {
    assert.deepEqual(memoryBounds(parsed({ "memory.maxHeapMb": 4096 })), { queuedBytes: 64 * MEBIBYTE, openBytes: 256 * MEBIBYTE, recentBytes: 64 * MEBIBYTE, sinkBatchBytes: 64 * MEBIBYTE });
    // V8's limit in a 1 GiB container is about 256 MiB: the bound is four fifths of it.
    assert.deepEqual(memoryBounds(parsed({ "memory.maxHeapMb": 204 })), {
      queuedBytes: Math.floor((204 * MEBIBYTE) / 8),
      openBytes: Math.floor((204 * MEBIBYTE) / 8),
      recentBytes: Math.floor((204 * MEBIBYTE) / 32),
      sinkBatchBytes: Math.floor((204 * MEBIBYTE) / 32),
    });
    const configured = parsed({ "memory.maxHeapMb": 204, "queue.maxQueuedBytes": 300 * MEBIBYTE, "assembler.maxOpenBytes": 2048, "assembler.maxRecentBytes": 0, "sink.maxBatchBytes": 4096 });
    assert.deepEqual(memoryBounds(configured), { queuedBytes: 300 * MEBIBYTE, openBytes: 2048, recentBytes: 0, sinkBatchBytes: 4096 });
  });
});
