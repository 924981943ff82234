/**
 * Two of one process's listeners given the same host and port are a settings
 * error naming both settings (exit 2, before anything starts), not the
 * system's "address in use" that sends the operator looking for another
 * collector (`ragscope serve` and `receive` as subprocesses).
 */
import assert from "node:assert/strict";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { runRagscope } from "../../support/run-ragscope.js";

/** Nothing listens there and nothing is started: every run below stops at its settings. */
const PORT = "36707";
/** A broker nothing answers on: receive must refuse before it tries to reach it. */
const UNREACHABLE_BROKER = "127.0.0.1:36708";

describe("listeners that would share a port", () => {
  let folder: string;
  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-listeners-"));
  });
  after(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  test("serve --port and --grpc-port equal: a settings error naming both flags, and no store opened", async () => {
    const dataDir = path.join(folder, "serve-grpc");
    const result = runRagscope(["serve", "--port", PORT, "--grpc-port", PORT, "--data-dir", dataDir], folder);
    assert.equal(result.status, 2, result.stderr);
    assert.match(result.stderr, /^ragscope serve: the configuration is invalid/);
    assert.match(result.stderr, new RegExp(`the OTLP/HTTP receiver \\(flag --port\\) and the OTLP/gRPC receiver \\(flag --grpc-port\\) are both set to port ${PORT} on 127\\.0\\.0\\.1: ragscope serve cannot open one port twice; give one of them another port \\(0 picks a free one\\)`));
    assert.doesNotMatch(result.stderr, /already in use|another collector/);
    assert.deepEqual(await readdir(dataDir).catch(() => []), [], "nothing started");
  });

  test("serve's /metrics or web UI on the receiver's port, set by flag or variable, is refused naming each", () => {
    const metrics = runRagscope(["serve", "--metrics-port", PORT, "--data-dir", path.join(folder, "serve-metrics")], folder, { RAGSCOPE_RECEIVER_PORT: PORT });
    assert.equal(metrics.status, 2, metrics.stderr);
    assert.match(metrics.stderr, new RegExp(`the OTLP/HTTP receiver \\(environment variable RAGSCOPE_RECEIVER_PORT\\) and /metrics, /healthz and /readyz \\(flag --metrics-port\\) are both set to port ${PORT}`));

    const ui = runRagscope(["serve", "--ui-port", PORT, "--metrics-port", PORT, "--port", "0", "--data-dir", path.join(folder, "serve-ui")], folder);
    assert.equal(ui.status, 2, ui.stderr);
    assert.match(ui.stderr, new RegExp(`/metrics, /healthz and /readyz \\(flag --metrics-port\\) and the web UI \\(flag --ui-port\\) are both set to port ${PORT}`));
  });

  test("a listener on every address clashes with one on a single address: serve's /metrics on 0.0.0.0 and the receiver's port", () => {
    const result = runRagscope(["serve", "--port", PORT, "--metrics-port", PORT, "--data-dir", path.join(folder, "serve-wildcard")], folder, { RAGSCOPE_METRICS_HOST: "0.0.0.0" });
    assert.equal(result.status, 2, result.stderr);
    assert.match(result.stderr, new RegExp(`are both set to port ${PORT} on 127\\.0\\.0\\.1 and 0\\.0\\.0\\.0`));
  });

  test("localhost is the loopback address: serve's receiver on localhost and /metrics on 127.0.0.1 or ::1 on one port clash", () => {
    for (const metricsHost of ["127.0.0.1", "::1", "[::1]"]) {
      const result = runRagscope(["serve", "--host", "localhost", "--port", PORT, "--metrics-host", metricsHost, "--metrics-port", PORT, "--grpc-port", "off", "--data-dir", path.join(folder, "serve-localhost")], folder);
      assert.equal(result.status, 2, `${metricsHost}: ${result.stderr}`);
      assert.match(result.stderr, new RegExp(`are both set to port ${PORT} on localhost and ${metricsHost.replace(/[.[\]]/g, "\\$&")} \\(localhost is 127\\.0\\.0\\.1 or ::1, whichever the machine resolves it to\\): ragscope serve cannot open one port twice`));
    }
  });

  test("an IPv6 wildcard written out in full clashes with any host on the port", () => {
    const result = runRagscope(["serve", "--host", "0:0:0:0:0:0:0:0", "--port", PORT, "--metrics-port", PORT, "--grpc-port", "off", "--data-dir", path.join(folder, "serve-ipv6-wildcard")], folder);
    assert.equal(result.status, 2, result.stderr);
    assert.match(result.stderr, new RegExp(`are both set to port ${PORT} on 0:0:0:0:0:0:0:0 and 127\\.0\\.0\\.1 \\(0:0:0:0:0:0:0:0 takes the port on every address\\)`));
  });

  test("different loopback addresses on one port do not clash", () => {
    const result = runRagscope(["config", "--host", "127.0.0.2", "--port", PORT, "--metrics-port", PORT, "--grpc-port", "off"], folder);
    assert.equal(result.status, 0, result.stderr);
  });

  test("a scoped IPv6 host is compared, not a crash: fe80::1%lo and 127.0.0.1 on one port do not clash, fe80:0::1%lo and fe80::1%lo do", () => {
    const apart = runRagscope(["config", "--host", "fe80::1%lo", "--port", PORT, "--metrics-port", PORT, "--grpc-port", "off"], folder);
    assert.equal(apart.status, 0, apart.stderr);
    const same = runRagscope(["config", "--host", "fe80::1%lo", "--metrics-host", "fe80:0::1%lo", "--port", PORT, "--metrics-port", PORT, "--grpc-port", "off"], folder);
    assert.equal(same.status, 2, same.stderr);
    assert.match(same.stderr, new RegExp(`are both set to port ${PORT} on fe80::1%lo and fe80:0::1%lo`));
  });

  test("receive --port equal to --metrics-port is refused before Kafka is tried", () => {
    const result = runRagscope(["receive", "--port", PORT, "--metrics-port", PORT, "--kafka-brokers", UNREACHABLE_BROKER], folder);
    assert.equal(result.status, 2, result.stderr);
    assert.match(result.stderr, /^ragscope receive: the configuration is invalid/);
    assert.match(result.stderr, new RegExp(`the OTLP/HTTP receiver \\(flag --port\\) and /metrics, /healthz and /readyz \\(flag --metrics-port\\) are both set to port ${PORT} on 127\\.0\\.0\\.1`));
    assert.doesNotMatch(result.stderr, /Kafka|broker/i);
  });
});
