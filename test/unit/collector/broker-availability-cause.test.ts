/**
 * The receiver's Kafka probe against a broker that refuses connections, with
 * the real kafkajs client and the receiver's own probe (spanTopicProbe): kafkajs
 * retries the refused connection for seconds, past the probe's timeout, before
 * it fails with "Connection error: connect ECONNREFUSED …". Once it has, the
 * reason /readyz and the receiver's 503s give names that cause, not only
 * "no answer within … ms" (which said nothing of a broker that is down).
 *
 * Nothing listens on the port: it was free a moment ago. The wait is for a
 * condition (the reason naming ECONNREFUSED), bounded well past kafkajs's
 * retries (about 15 s at its defaults); no duration is asserted.
 */
import assert from "node:assert/strict";
import net from "node:net";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { BrokerAvailability } from "../../../collector/02-transport/kafka/broker-availability.js";
import { createKafkaClient } from "../../../collector/02-transport/kafka/kafka-client.js";
import { spanTopicProbe } from "../../../collector/wiring/run/kafka-receiver-role.js";
import { waitUntil } from "../../support/kafka-helpers.js";

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

test("a broker refusing connections: once kafkajs says ECONNREFUSED, the reason names it, not only the probe's timeout", async () => {
  const broker = `127.0.0.1:${await freePort()}`;
  const kafka = createKafkaClient({ brokers: [broker], clientId: "availability-test" }, { onLog: () => {} });
  // As the receiver builds it (kafka-receiver-role.ts): its own admin client, no retries of its own.
  const admin = kafka.admin({ retry: { retries: 0 } });
  const availability = new BrokerAvailability({ probe: spanTopicProbe(admin, "otlp_spans"), intervalMs: 60_000, retryIntervalMs: 60_000, probeTimeoutMs: 100 });
  try {
    await availability.probe();
    assert.match(availability.unavailableReason ?? "", /^Kafka unreachable for \d+ s: metadata request failed: /);
    await waitUntil(() => /ECONNREFUSED/.test(availability.unavailableReason ?? ""), { description: `the reason to name ECONNREFUSED (it is: ${availability.unavailableReason})`, timeoutMs: 90_000, intervalMs: 100 });
    assert.match(availability.unavailableReason ?? "", new RegExp(`metadata request failed: .*connect ECONNREFUSED ${broker.replaceAll(".", "\\.")}`));
    // A probe timing out after that keeps the cause and says it timed out too.
    await availability.probe();
    assert.match(availability.unavailableReason ?? "", /ECONNREFUSED/);
  } finally {
    availability.stop();
    await admin.disconnect().catch(() => {});
  }
});
