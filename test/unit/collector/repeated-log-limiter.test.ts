/**
 * The repeat limit of kafkajs's log (collector/wiring/observe/repeated-log-limiter.ts with the key of
 * collector/02-transport/kafka/kafka-log-lines.ts), driven by an injected clock: the first entry of a kind
 * is printed, the same kind within 60 s is counted, and a summary line says how many were left out.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { logLevel, type LogEntry } from "kafkajs";
import { kafkaLogKey, kafkaLogLine, kafkaRepeatSummaryLine, maskVariableParts } from "../../../collector/02-transport/kafka/kafka-log-lines.js";
import { RepeatedLogLimiter } from "../../../collector/wiring/observe/repeated-log-limiter.js";

const windowMs = 60_000;

/** The shape kafkajs gives a log creator's function (kafkajs/src/loggers/index.js), as logged with Kafka down. */
function connectionError(retryCount: number, at: number, broker = "127.0.0.1:41611"): LogEntry {
  return {
    namespace: "BrokerPool",
    level: logLevel.ERROR,
    label: "ERROR",
    log: {
      timestamp: new Date(at).toISOString(),
      logger: "kafkajs",
      message: `Failed to connect to seed broker, trying another broker from the list: Connection error: connect ECONNREFUSED ${broker}`,
      retryCount,
      retryTime: 300 * (retryCount + 1),
    },
  };
}

function restarting(retryTime: number): LogEntry {
  return { namespace: "Consumer", level: logLevel.ERROR, label: "ERROR", log: { timestamp: "", logger: "kafkajs", message: `Restarting the consumer in ${retryTime}ms`, retryCount: 1, retryTime } };
}

/** A limiter over kafkajs entries whose printed lines land in `lines`, with time set by `clock.now`. */
function limitedLog() {
  const clock = { now: 1_000_000 };
  const lines: string[] = [];
  const limiter = new RepeatedLogLimiter<LogEntry>({
    windowMs,
    clock: () => clock.now,
    keyOf: kafkaLogKey,
    write: (entry) => lines.push(kafkaLogLine(entry)),
    writeSummary: ({ first, suppressed, seconds }) => lines.push(kafkaRepeatSummaryLine(first, suppressed, seconds)),
  });
  return { clock, lines, limiter, parsed: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>) };
}

describe("repeat limit of kafkajs log entries", () => {
  test("the first entry is printed in full; repeats within the window are counted, then summed up in one line when it ends", () => {
    const { clock, limiter, parsed } = limitedLog();
    for (let retry = 0; retry < 50; retry += 1) {
      limiter.accept(connectionError(retry % 6, clock.now));
      clock.now += 1_000;
    }
    // 50 entries over 50 s: the first printed, 49 counted.
    assert.equal(parsed().length, 1);
    assert.equal(parsed()[0]!.retryCount, 0, "the first entry, with its fields");
    assert.equal(parsed()[0]!.source, "kafkajs");
    assert.equal(limiter.suppressedTotal, 49);
    limiter.flushEnded();
    assert.equal(parsed().length, 1, "the window (opened 50 s ago) has not ended");
    clock.now += 10_000;
    limiter.flushEnded();
    assert.equal(parsed().length, 2);
    const summary = parsed()[1]!;
    assert.equal(summary.source, "ragscope");
    assert.equal(summary.level, "ERROR");
    assert.equal(summary.namespace, "BrokerPool");
    assert.equal(summary.suppressed, 49);
    assert.match(String(summary.message), /^49 more kafkajs log entries like this in the last 60 s: Failed to connect to seed broker/);
  });

  test("an outage that lasts: one full entry and one summary per window, and the counts add up to every entry", () => {
    const { clock, limiter, parsed } = limitedLog();
    const total = 10 * 60; // one retry a second for ten minutes
    for (let second = 0; second < total; second += 1) {
      limiter.accept(connectionError(second % 6, clock.now));
      clock.now += 1_000;
    }
    limiter.flushAll();
    const full = parsed().filter((line) => line.source === "kafkajs");
    const summaries = parsed().filter((line) => line.source === "ragscope");
    assert.equal(full.length, 10, "one printed entry per 60 s window");
    assert.equal(summaries.length, 10);
    assert.equal(summaries.reduce((sum, line) => sum + Number(line.suppressed), 0) + full.length, total, "every entry is printed or counted in a summary");
    assert.equal(limiter.suppressedTotal, total - 10);
  });

  test("the window closes when the next entry of its kind comes after it, without a flush", () => {
    const { clock, limiter, parsed } = limitedLog();
    limiter.accept(connectionError(0, clock.now));
    limiter.accept(connectionError(1, clock.now));
    clock.now += windowMs;
    limiter.accept(connectionError(2, clock.now));
    assert.deepEqual(
      parsed().map((line) => [line.source, line.retryCount ?? line.suppressed]),
      [
        ["kafkajs", 0],
        ["ragscope", 1],
        ["kafkajs", 2],
      ],
    );
    assert.match(String(parsed()[1]!.message), /^1 more kafkajs log entry like this in the last 60 s/);
  });

  test("a window without repeats ends without a summary; a stop sums up the open windows with their true length", () => {
    const { clock, limiter, parsed } = limitedLog();
    limiter.accept(connectionError(0, clock.now));
    clock.now += windowMs;
    limiter.flushEnded();
    assert.equal(parsed().length, 1, "nothing was left out, nothing to say");
    limiter.accept(connectionError(0, clock.now));
    clock.now += 4_200;
    limiter.accept(connectionError(1, clock.now));
    limiter.flushAll();
    assert.equal(parsed().length, 3);
    assert.match(String(parsed()[2]!.message), /^1 more kafkajs log entry like this in the last 5 s/);
  });

  test("kinds: level, namespace and the message with its free-standing numbers masked; addresses kept apart", () => {
    const { clock, limiter, parsed } = limitedLog();
    limiter.accept(restarting(1_234));
    limiter.accept(restarting(5_678)); // the same kind: only the delay differs
    limiter.accept(connectionError(0, clock.now, "127.0.0.1:41611"));
    limiter.accept(connectionError(0, clock.now, "127.0.0.1:41612")); // another broker: its own kind
    limiter.accept({ ...restarting(1_234), level: logLevel.WARN }); // another level
    limiter.accept({ ...restarting(1_234), namespace: "Runner" }); // another namespace
    assert.equal(parsed().length, 5);
    assert.equal(limiter.suppressedTotal, 1);
    assert.equal(maskVariableParts("Restarting the consumer in 1234ms"), "Restarting the consumer in #ms");
    assert.equal(maskVariableParts("Response Heartbeat(key: 12, version: 3)"), "Response Heartbeat(key: #, version: #)");
    assert.equal(maskVariableParts("connect ECONNREFUSED 10.0.12.7:9092 and kafka-0.kafka:9092"), "connect ECONNREFUSED 10.0.12.7:9092 and kafka-0.kafka:9092");
  });

  test("memory is bounded: past maxKinds, entries of new kinds are printed in full, never dropped", () => {
    const clock = { now: 0 };
    const written: string[] = [];
    const limiter = new RepeatedLogLimiter<string>({ windowMs, clock: () => clock.now, keyOf: (entry) => entry, write: (entry) => written.push(entry), writeSummary: () => {}, maxKinds: 2 });
    for (const entry of ["a", "b", "c", "c", "a"]) limiter.accept(entry);
    assert.deepEqual(written, ["a", "b", "c", "c"]);
    assert.equal(limiter.suppressedTotal, 1);
  });
});
