/**
 * The OTLP/gRPC port setting (receiver.grpcPort, RAGSCOPE_GRPC_PORT, --grpc-port): 4317 when unset, a free port
 * when unset and the HTTP port is 0 (a collector on free ports must not take 4317 from a running one), "off" for
 * none, and a value that is neither a port nor "off" refused naming where it came from.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { loadSettings, resolveSettings } from "../../../collector/wiring/config/load-settings.js";
import { grpcPortOf } from "../../../collector/01-receive/receiver-options.js";
import type { SettingsSources } from "../../../collector/wiring/config/load-settings.js";

function grpcPort(sources: SettingsSources): number | null {
  const loaded = loadSettings(sources);
  assert.ok(loaded.ok, loaded.ok ? "" : loaded.error.join("\n"));
  return grpcPortOf(loaded.value.receiver);
}

describe("the OTLP/gRPC port setting", () => {
  test("unset: 4317, beside the HTTP default of 4318 or any other fixed HTTP port", () => {
    assert.equal(grpcPort({ environment: {} }), 4317);
    assert.equal(grpcPort({ environment: { RAGSCOPE_RECEIVER_PORT: "5318" } }), 4317);
  });

  test("unset while the HTTP port is 0: a free port too", () => {
    assert.equal(grpcPort({ environment: {}, fixed: { "receiver.port": 0 }, command: "demo" }), 0);
    assert.equal(grpcPort({ environment: { RAGSCOPE_RECEIVER_PORT: "0" } }), 0);
  });

  test("set: the port given, by variable, flag or config file; off: no gRPC server", () => {
    assert.equal(grpcPort({ environment: { RAGSCOPE_GRPC_PORT: "5317" } }), 5317);
    assert.equal(grpcPort({ environment: { RAGSCOPE_RECEIVER_PORT: "0", RAGSCOPE_GRPC_PORT: "4317" } }), 4317);
    assert.equal(grpcPort({ environment: {}, flags: { "receiver.grpcPort": { value: "0", flag: "--grpc-port" } } }), 0);
    assert.equal(grpcPort({ environment: { RAGSCOPE_GRPC_PORT: "off" } }), null);
    assert.equal(grpcPort({ environment: {}, file: { path: "/etc/ragscope.yaml", document: { receiver: { grpcPort: "off" } } } }), null);
  });

  test("neither a port nor off: refused, naming the variable and what it takes", () => {
    const resolved = resolveSettings({ environment: { RAGSCOPE_GRPC_PORT: "grpc" } });
    assert.ok(!resolved.ok);
    assert.deepEqual(resolved.error, ['environment variable RAGSCOPE_GRPC_PORT: must be off or a whole number from 0 to 65535 (a TCP port; 0 picks a free one) in decimal digits only (no sign, point, exponent, hex or spaces), not "grpc"']);
    const tooHigh = resolveSettings({ environment: { RAGSCOPE_GRPC_PORT: "70000" } });
    assert.ok(!tooHigh.ok);
    assert.match(tooHigh.error.join("\n"), /RAGSCOPE_GRPC_PORT: must be at most 65535 \(a TCP port; 0 picks a free one\)/);
  });
});
