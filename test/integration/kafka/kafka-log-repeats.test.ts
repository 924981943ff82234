/**
 * kafkajs's log with Kafka down, as an operator sees it: `ragscope receive` (bin/ragscope.js) against a real
 * broker that this file stops. kafkajs logs every connection retry — two lines a second or so for as long as
 * the outage lasts — and stderr was flooded with them. Now the first entry of each kind is printed, repeats
 * within 60 s are counted (ragscope_kafka_log_entries_suppressed_total) and summed up in one line.
 *
 * Nothing here depends on how fast the machine is: the test waits until kafkajs has reported a given number
 * of entries (printed + counted), then bounds the printed ones by the number of kinds times the number of
 * 60 s windows the measured time spans — 40 entries against a bound of a few lines while the test runs under
 * a few minutes; without the limit every entry is a line and the bound fails.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { startKafkaBroker, type KafkaBroker } from "../../support/kafka-broker.js";
import { uniqueTopicName, waitUntil } from "../../support/kafka-helpers.js";
import { killAllCollectorProcesses, startCollectorProcess, type CollectorProcess } from "./support/collector-processes.js";

const windowMs = 60_000;
/** kafkajs entries to wait for after the broker stopped: far above what the limit lets through in a few windows. */
const reportedEntriesWanted = 40;
const suppressedMetric = "ragscope_kafka_log_entries_suppressed_total";

/** stderr lines from index `from` on, parsed; lines that are not JSON are left out. */
function jsonLines(process: CollectorProcess, from: number): Record<string, unknown>[] {
  const parsed: Record<string, unknown>[] = [];
  for (const line of process.output.slice(from)) {
    if (!line.startsWith("err {")) continue;
    try {
      parsed.push(JSON.parse(line.slice("err ".length)) as Record<string, unknown>);
    } catch {
      // A line cut by the pipe: not one of kafkajs's.
    }
  }
  return parsed;
}

/** The test's own notion of a kind, coarser than the collector's: level, namespace and the message without any digit (one broker here). */
const kindOf = (line: Record<string, unknown>) => JSON.stringify([line.level, line.namespace, String(line.message).replace(/\d+/g, "")]);

describe("kafkajs's log with the broker down", () => {
  let broker: KafkaBroker;
  let receiver: CollectorProcess;

  before(async () => {
    broker = await startKafkaBroker();
  });

  after(async () => {
    await killAllCollectorProcesses();
    await broker?.stop();
  });

  test("`receive`: the first entry of each kind, repeats counted in /metrics and summed up per window, not a line per retry", async () => {
    receiver = await startCollectorProcess("receiver", "receive", ["--kafka-brokers", broker.brokers.join(","), "--topic", uniqueTopicName("log-repeats"), "--port", "0"]);
    await waitUntil(() => receiver.ready(), { description: "receive ready", timeoutMs: 30_000, intervalMs: 200 });
    assert.equal(await receiver.sample(suppressedMetric), 0, "nothing left out while Kafka is up");

    const from = receiver.output.length;
    const stoppedAt = Date.now();
    await broker.stopProcess();
    // The receiver probes Kafka every few seconds while it is down (broker-availability.ts); each probe's retries are logged.
    const reported = await waitUntil(
      async () => {
        const printed = jsonLines(receiver, from).filter((line) => line.source === "kafkajs");
        const suppressed = (await receiver.sample(suppressedMetric)) ?? 0;
        return printed.length + suppressed >= reportedEntriesWanted && { printed, suppressed };
      },
      { description: `${reportedEntriesWanted} kafkajs entries reported after the broker stopped`, timeoutMs: 180_000, intervalMs: 500 },
    );
    const elapsedMs = Date.now() - stoppedAt;
    const kinds = new Set(reported.printed.map(kindOf));
    const windows = Math.floor(elapsedMs / windowMs) + 1;
    const bound = kinds.size * windows;
    const sample = reported.printed.slice(0, 6).map((line) => JSON.stringify(line).slice(0, 200)).join("\n");
    assert.ok(kinds.size >= 1, "kafkajs said Kafka is down");
    assert.ok(
      reported.printed.length <= bound,
      `${reported.printed.length} kafkajs lines printed for ${reported.printed.length + reported.suppressed} entries reported, in ${kinds.size} kinds over ${windows} window(s) of 60 s: at most ${bound}\n${sample}`,
    );
    assert.ok(reported.suppressed >= reportedEntriesWanted - bound, `the repeats are counted: ${reported.suppressed}`);
    for (const line of reported.printed) assert.equal(typeof line.level, "string", `each kafkajs line says its level: ${JSON.stringify(line)}`);

    // Stopping prints the counts of the windows still open: none is lost.
    const exitCode = await receiver.kill("SIGTERM");
    assert.equal(exitCode, 0, receiver.output.slice(-8).join("\n"));
    const summaries = jsonLines(receiver, from).filter((line) => line.source === "ragscope" && typeof line.suppressed === "number");
    assert.ok(summaries.length >= 1, "a summary line");
    for (const summary of summaries) assert.match(String(summary.message), /^\d+ more kafkajs log (entry|entries) like this in the last \d+ s: /);
    const summedUp = summaries.reduce((sum, line) => sum + Number(line.suppressed), 0);
    assert.ok(summedUp >= reported.suppressed, `the summaries (${summedUp}) cover every entry counted before the stop (${reported.suppressed})`);
    const printedKinds = new Set(jsonLines(receiver, from).filter((line) => line.source === "kafkajs").map(kindOf));
    for (const summary of summaries) {
      const kind = JSON.stringify([summary.level, summary.namespace, String(summary.message).replace(/^\d+ more kafkajs log (entry|entries) like this in the last \d+ s: /, "").replace(/\d+/g, "")]);
      assert.ok(printedKinds.has(kind), `a summary of a kind that was printed: ${String(summary.message)}`);
    }
  });
});
