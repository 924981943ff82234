/**
 * The TraceSource contract (collector/02-transport/trace-source.ts), one suite for
 * every transport: a test file calls `traceSourceContract` with a factory
 * that builds its transport (the in-process bus; Kafka on the real broker,
 * under test/integration/kafka/).
 *
 * What it holds a transport to:
 * - a receiver in front answers 503 with Retry-After when the transport
 *   cannot take more (the in-process bus at its bound; Kafka when the broker
 *   cannot store a write durably);
 * - messages are handed out in order, each once, with increasing positions;
 *   `commit` records what the progress tracker allows and nothing past it;
 *   `positions` and `lag` tell where writing, reading and committing stand;
 * - paused, nothing written after the pause is handed out and lag grows;
 *   resumed, it all is;
 * - a crash (the reader ends without committing): a durable transport
 *   replays every message from the last commit on, to a new reader; a
 *   transport that is not durable says so (`capabilities.durable` false), and
 *   a new reader after the crash gets nothing of what was accepted — the
 *   suite checks the flag tells the truth either way.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { BusMessage, DecodedTrace, TracePublisher } from "../../collector/02-transport/trace-bus.js";
import { decodeTraceRequest, toSpanRecords } from "../../collector/00-otlp/index.js";
import type { SourceRecord, TraceSource, TraceSourceCapabilities } from "../../collector/02-transport/trace-source.js";
import { unreadOf } from "../../collector/02-transport/trace-source.js";
import { ProgressTracker } from "../../collector/03-consume/progress-tracker.js";
import { startReceiver } from "../../collector/01-receive/start-receiver.js";
import { otlpBody, recordTraces, type RecordedTrace } from "../integration/kafka/support/synthetic-traces.js";
import { waitUntil } from "./kafka-helpers.js";

/** One reader of the transport, as one process would hold it. */
export interface SourceUnderTest {
  source: TraceSource;
  /** The process ends without committing (nothing is flushed, nothing committed). */
  crash(): Promise<void>;
  /** Ends the reader in order (for clean-up). */
  close(): Promise<void>;
}

export interface TransportUnderTest {
  capabilities: TraceSourceCapabilities;
  /** Writes into the transport, as the receiver does. */
  publisher: TracePublisher;
  /** How the suite writes: bytes (`publish`, the default) or decoded span records (`publishDecoded`, as the receiver writes to a bus that takes them). */
  publishes?: "encoded" | "decoded";
  /** A reader committing what `progress` allows; after a crash, the next call is the restarted process. */
  openSource(progress: ProgressTracker): Promise<SourceUnderTest>;
  /** A publisher whose transport cannot take more now (full, or unable to store durably). */
  fullPublisher(): Promise<TracePublisher>;
  close(): Promise<void>;
}

export type TransportFactory = () => Promise<TransportUnderTest>;

const waitOptions = { timeoutMs: 60_000, intervalMs: 20 };

function messageOf(trace: RecordedTrace): BusMessage {
  return { key: trace.traceId, value: otlpBody(trace.spans, "protobuf") };
}

function positionOf(record: SourceRecord): { partition: number; offset: string } {
  return record.kind === "encoded" ? record.message.position : record.position;
}

/** The trace ids a message fed: the key for an encoded message (keyed by trace id here), the decoded ids otherwise. */
function traceIdsOf(record: SourceRecord): string[] {
  if (record.kind === "decoded") return [...record.traceIds];
  return record.message.key === null ? [] : [record.message.key];
}

/** Polls until `count` messages were handed out (more would be a failure the caller sees). */
async function pollCount(source: TraceSource, count: number): Promise<SourceRecord[]> {
  const records: SourceRecord[] = [];
  await waitUntil(
    async () => {
      records.push(...(await source.poll(1_000, 50)));
      return records.length >= count || undefined;
    },
    { ...waitOptions, description: `${count} messages handed out` },
  );
  // Nothing beyond them arrives.
  records.push(...(await source.poll(1_000, 200)));
  return records;
}

async function publishAll(transport: TransportUnderTest, messages: BusMessage[]): Promise<void> {
  const { publisher } = transport;
  const publishDecoded = transport.publishes === "decoded" ? publisher.publishDecoded?.bind(publisher) : undefined;
  assert.ok(transport.publishes !== "decoded" || publishDecoded !== undefined, "a transport said to take decoded span records has publishDecoded");
  const published = publishDecoded !== undefined ? await publishDecoded(messages.map(decodedTraceOf)) : await publisher.publish(messages);
  assert.ok(published.ok, published.ok ? "" : published.error.message);
}

/** A message's spans as the decode thread hands them to a bus that takes records. */
function decodedTraceOf(message: BusMessage): DecodedTrace {
  const decoded = decodeTraceRequest(message.value, "protobuf");
  if (!decoded.ok) throw new Error(decoded.error.message);
  return { key: message.key ?? "", spans: toSpanRecords(decoded.value), bytes: message.value.byteLength };
}

export function traceSourceContract(name: string, makeTransport: TransportFactory): void {
  describe(`TraceSource contract: ${name}`, () => {
    let traces: RecordedTrace[] = [];
    // Sources wait on timers that do not hold the process open (in a process, the receiver's server does): this does, meanwhile.
    let keepAlive: NodeJS.Timeout | undefined;
    before(async () => {
      keepAlive = setInterval(() => {}, 1_000);
      traces = await recordTraces(10);
    });

    async function withTransport(work: (transport: TransportUnderTest) => Promise<void>): Promise<void> {
      const transport = await makeTransport();
      try {
        await work(transport);
      } finally {
        await transport.close();
      }
    }

    test("a receiver in front answers 503 with Retry-After when the transport cannot take more", async () => {
      await withTransport(async (transport) => {
        const receiver = await startReceiver({ host: "127.0.0.1", port: 0, publisher: await transport.fullPublisher() });
        try {
          const response = await fetch(`${receiver.url}/v1/traces`, {
            method: "POST",
            headers: { "content-type": "application/x-protobuf" },
            body: otlpBody(traces[0]!.spans, "protobuf"),
          });
          assert.equal(response.status, 503);
          const retryAfter = Number(response.headers.get("retry-after"));
          assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1, `Retry-After is whole seconds: ${response.headers.get("retry-after")}`);
        } finally {
          await receiver.close();
        }
      });
    });

    test("messages are handed out once, in order; commit stops at the oldest message not durable; positions and lag say where things stand", async () => {
      await withTransport(async (transport) => {
        const progress = new ProgressTracker();
        const reader = await transport.openSource(progress);
        try {
          const sent = traces.slice(0, 5);
          await publishAll(transport, sent.map(messageOf));
          const records = await pollCount(reader.source, 5);
          assert.deepEqual(records.map(traceIdsOf), sent.map((trace) => [trace.traceId]), "each message once, in the order written");
          const offsets = records.map((record) => BigInt(positionOf(record).offset));
          for (let index = 1; index < offsets.length; index += 1) assert.equal(offsets[index], offsets[index - 1]! + 1n, "consecutive offsets");
          const partition = positionOf(records[0]!).partition;

          for (const record of records) progress.received(positionOf(record), traceIdsOf(record));
          // Traces 0, 1 and 3 are durable; 2 is not: the commit stops at its message.
          for (const index of [0, 1, 3]) progress.durable(sent[index]!.traceId);
          assert.equal(await reader.source.commit(), 1, "one partition's commit moved");
          const positions = await reader.source.positions();
          const position = positions.find((candidate) => candidate.partition === partition && candidate.owned);
          assert.ok(position, "the partition read is reported");
          assert.equal(position.committed, offsets[2], "committed up to the oldest message not durable");
          assert.equal(position.read, offsets[4]! + 1n, "read up to the last message handed out");
          assert.equal(position.end, offsets[4]! + 1n, "written up to the last message");
          assert.equal(unreadOf(position), 0);
          assert.equal(await reader.source.lag(), 0);
          assert.equal(await reader.source.commit(), 0, "a commit that did not move commits nothing");
          await reader.close();
        } catch (error) {
          await reader.crash();
          throw error;
        }
      });
    });

    test("paused, nothing written after the pause is handed out and lag grows; resumed, all of it is", async () => {
      await withTransport(async (transport) => {
        const reader = await transport.openSource(new ProgressTracker());
        try {
          await publishAll(transport, [messageOf(traces[0]!)]);
          await pollCount(reader.source, 1);
          reader.source.pause("sink_backlog");
          assert.equal(reader.source.pausedFor, "sink_backlog");
          assert.equal(await reader.source.lag(), 0);
          await publishAll(transport, traces.slice(1, 4).map(messageOf));
          const lag = await waitUntil(async () => ((await reader.source.lag()) === 3 ? 3 : undefined), { ...waitOptions, description: "lag of the 3 messages written while paused" });
          assert.equal(lag, 3);
          // Polling on: still nothing (every round waits, as a driver's would).
          for (let round = 0; round < 5; round += 1) assert.deepEqual(await reader.source.poll(1_000, 100), [], "nothing handed out while paused");
          await publishAll(transport, [messageOf(traces[4]!)]);
          await waitUntil(async () => ((await reader.source.lag()) === 4 ? true : undefined), { ...waitOptions, description: "lag grows to 4" });
          reader.source.resume();
          assert.equal(reader.source.pausedFor, null);
          const records = await pollCount(reader.source, 4);
          assert.deepEqual(records.map(traceIdsOf), traces.slice(1, 5).map((trace) => [trace.traceId]));
          assert.equal(await reader.source.lag(), 0);
          await reader.close();
        } catch (error) {
          await reader.crash();
          throw error;
        }
      });
    });

    test("a crash replays every message not committed when the transport is durable, and the transport says whether it is", async () => {
      await withTransport(async (transport) => {
        const progress = new ProgressTracker();
        const first = await transport.openSource(progress);
        const sent = traces.slice(0, 6);
        await publishAll(transport, sent.slice(0, 4).map(messageOf));
        const records = await pollCount(first.source, 4);
        for (const record of records) progress.received(positionOf(record), traceIdsOf(record));
        progress.durable(sent[0]!.traceId);
        progress.durable(sent[1]!.traceId);
        await first.source.commit();
        // Durable later, but never committed: the crash comes first.
        progress.durable(sent[2]!.traceId);
        await publishAll(transport, sent.slice(4).map(messageOf));
        await first.crash();

        const restarted = await transport.openSource(new ProgressTracker());
        try {
          if (transport.capabilities.durable) {
            const replayed = await pollCount(restarted.source, 4);
            assert.deepEqual(replayed.map(traceIdsOf), sent.slice(2).map((trace) => [trace.traceId]), "every message from the last commit on, in order");
          } else {
            // Not durable: the accepted messages lived in the crashed process; the new one starts empty.
            assert.deepEqual(await restarted.source.poll(1_000, 200), []);
            assert.equal(await restarted.source.lag(), 0);
          }
          await restarted.close();
        } catch (error) {
          await restarted.crash();
          throw error;
        }
      });
    });

    after(() => {
      clearInterval(keepAlive);
      traces = [];
    });
  });
}
