/**
 * `POST /v1/logs` is untrusted input as `/v1/traces` is (SECURITY.md "Limits"), answered by the same pipeline, against
 * `ragscope serve` with its default bounds as a child process over real OTLP/HTTP on 127.0.0.1:
 * - a protobuf body of tiny items (a log record whose body is a key-value list of 600,000 empty entries, two bytes
 *   each: 1.2 MB) is counted on its bytes and refused before it is decoded (413, naming RAGSCOPE_MAX_ITEMS_PER_REQUEST),
 *   and serve's resident set stays within the bound of a refusal;
 * - bytes that are no logs request, and JSON that does not parse, are 400; another content type 415; GET 405;
 * - records that are no event of a span (a log line without trace context, a record without an event name) are
 *   accepted (200: the sender did nothing wrong) and counted under why they were left out;
 * and serve keeps serving: a real record after all of them is taken.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { readSample } from "../../collector/wiring/observe/metrics-registry.js";
import { startCollectorSubprocess, type CollectorSubprocess } from "../support/collector-subprocess.js";
import { field } from "../support/protobuf-wire.js";

const MEBIBYTE = 1024 * 1024;
/** How far above its idle RSS serve may go while refusing: the body and its copies. */
const REFUSED_RSS_BOUND_BYTES = 256 * MEBIBYTE;

let collector: CollectorSubprocess;
before(async () => (collector = await startCollectorSubprocess({}, { nodeArguments: ["--max-old-space-size=512"] })));
after(async () => {
  await collector.stop();
  await collector.remove();
});

async function postLogs(body: Uint8Array | string, contentType: string, method = "POST"): Promise<{ status: number; text: string }> {
  const response = await fetch(`${collector.receiverUrl}/v1/logs`, { method, headers: { "content-type": contentType }, ...(method === "POST" ? { body } : {}) });
  const bytes = new Uint8Array(await response.arrayBuffer());
  return { status: response.status, text: new TextDecoder().decode(bytes) };
}

/** One ExportLogsServiceRequest holding one log record of the given fields. */
function logsRequest(record: Buffer): Buffer {
  return field(1, field(2, field(2, record)));
}

const metric = async (name: string, labels: Record<string, string> = {}) => readSample(await collector.metrics(), name, labels) ?? 0;

test("a logs request of tiny items is refused before decoding; malformed ones are 400; records that are no event of a span are counted; serve keeps serving", async () => {
  const idle = await metric("ragscope_process_resident_memory_bytes");
  const emptyEntries = Buffer.alloc(600_000 * 2);
  for (let index = 0; index < emptyEntries.length; index += 2) emptyEntries[index] = 0x0a; // field 1 (a KeyValue), length 0
  const tinyItems = logsRequest(field(5, field(6, emptyEntries)));
  const refused = await postLogs(tinyItems, "application/x-protobuf");
  assert.equal(refused.status, 413);
  assert.match(refused.text, /more than 500000 items .*RAGSCOPE_MAX_ITEMS_PER_REQUEST/);
  assert.ok((await metric("ragscope_process_resident_memory_bytes")) - idle < REFUSED_RSS_BOUND_BYTES, "refused without decoding it");

  assert.equal((await postLogs(Buffer.from("not a protobuf message at all, just text"), "application/x-protobuf")).status, 400);
  assert.equal((await postLogs('{"resourceLogs": [', "application/json")).status, 400);
  assert.equal((await postLogs("{}", "text/plain")).status, 415);
  assert.equal((await postLogs("", "application/json", "GET")).status, 405);

  // A log line without trace context, and a record in a span without an event name: accepted, not kept, counted.
  const withoutSpan = await postLogs(JSON.stringify({ resourceLogs: [{ scopeLogs: [{ logRecords: [{ eventName: "gen_ai.choice", body: { stringValue: "a log line" } }] }] }] }), "application/json");
  assert.equal(withoutSpan.status, 200);
  const inSpanWithoutName = { traceId: "5b8efff798038103d269b633813fc60c", spanId: "eee19b7ec3c1b174", body: { stringValue: "a log line in a span" } };
  assert.equal((await postLogs(JSON.stringify({ resourceLogs: [{ scopeLogs: [{ logRecords: [inSpanWithoutName] }] }] }), "application/json")).status, 200);
  assert.equal(await metric("ragscope_log_records_left_out_total", { reason: "without_span" }), 1);
  assert.equal(await metric("ragscope_log_records_left_out_total", { reason: "without_event_name" }), 1);

  const event = { ...inSpanWithoutName, eventName: "gen_ai.choice", body: { kvlistValue: { values: [{ key: "index", value: { intValue: "0" } }] } } };
  assert.equal((await postLogs(JSON.stringify({ resourceLogs: [{ scopeLogs: [{ logRecords: [event] }] }] }), "application/json")).status, 200, "serve still takes logs");
  assert.equal(await metric("ragscope_log_records_received_total"), 3);
  assert.equal(await metric("ragscope_receiver_requests_total", { outcome: "payloadTooLarge" }), 1);
  assert.equal(await metric("ragscope_receiver_requests_total", { outcome: "malformed" }), 2);
});
