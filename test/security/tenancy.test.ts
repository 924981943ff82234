/**
 * Tenancy enforced by the server: tokens map to tenants (hashed at rest), the
 * tenant of stored data comes from the token, a client attribute naming
 * another tenant is recorded as a claim only, and a result's identity includes
 * its tenant — token A re-sending B's trace id and root span id no longer
 * overwrites B's stored result. Real OTLP/JSON to the embedded collector.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { caseResult as caseResultSchema } from "../../contracts/case-result.js";
import { loadSettings } from "../../collector/wiring/config/load-settings.js";
import { tokenDigestHex } from "../../collector/01-receive/bearer-authorization.js";
import type { EmbeddedCollector } from "../../collector/wiring/run/embedded-collector.js";
import { startCollectorForTests, type CollectorForTests } from "../support/embedded-collector-for-tests.js";
import { recordAttack, residentMemoryMb } from "../support/attack-report.js";
import { queryRows } from "../support/temporary-store.js";

const TOKEN_A = "token-of-acme-3f9c1e";
const TOKEN_B = "token-of-globex-77ab02";
const TRACE = "a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1";
const ROOT = "b2b2b2b2b2b2b2b2";

function request(answer: string, extra: { claimedTenant?: string; resourceTenant?: string } = {}) {
  const text = (value: string) => ({ stringValue: value });
  const resource = [{ key: "service.name", value: text("shared-bot") }];
  if (extra.resourceTenant) resource.push({ key: "ragscope.tenant.authenticated", value: text(extra.resourceTenant) });
  const attributes = [
    { key: "openinference.span.kind", value: text("CHAIN") },
    { key: "ragscope.stage", value: text("request") },
    { key: "ragscope.query", value: text("refund window?") },
    { key: "ragscope.answer", value: text(answer) },
  ];
  if (extra.claimedTenant) attributes.push({ key: "ragscope.tenant_id", value: text(extra.claimedTenant) });
  return JSON.stringify({
    resourceSpans: [{ resource: { attributes: resource }, scopeSpans: [{ spans: [{ traceId: TRACE, spanId: ROOT, name: "rag.request", kind: 1, startTimeUnixNano: "1700000000000000000", endTimeUnixNano: "1700000000100000000", attributes }] }] }],
  });
}

describe("tenants from credentials", () => {
  let running: CollectorForTests;
  let collector: EmbeddedCollector;
  before(async () => {
    running = await startCollectorForTests({ environment: { RAGSCOPE_TENANT_TOKENS: `acme=${tokenDigestHex(TOKEN_A)},globex=${tokenDigestHex(TOKEN_B)}` } });
    collector = running.collector;
  });
  after(async () => running.stop());

  const post = (token: string | null, body: string) =>
    fetch(`${collector.receiverUrl}/v1/traces`, { method: "POST", headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) }, body });

  async function stored() {
    assert.ok(await collector.waitUntilIdle(20_000));
    const rows = await queryRows<{ payload: string }>(collector.store.connection, "SELECT payload FROM {{database}}.case_results FINAL WHERE trace_id = {trace:String}", { trace: TRACE });
    return rows.map((row) => caseResultSchema.parse(JSON.parse(row.payload)));
  }

  test("no token or an unknown token: 401", async () => {
    assert.equal((await post(null, request("x"))).status, 401);
    assert.equal((await post("guessed-token", request("x"))).status, 401);
  });

  test("B's result is not touched by A re-sending B's trace id and root span id, claiming to be B", async () => {
    assert.equal((await post(TOKEN_B, request("Globex: 30 days."))).status, 200);
    const [globex] = await stored();
    assert.equal(globex?.rag_observation.tenant_id, "globex");

    // A forges everything it can: B's trace and span ids, B's tenant as a claim and as the receiver's own attribute.
    assert.equal((await post(TOKEN_A, request("Acme overwrote this.", { claimedTenant: "globex", resourceTenant: "globex" }))).status, 200);
    const results = await stored();
    assert.equal(results.length, 2, "two results: one per tenant");
    const byTenant = new Map(results.map((result) => [result.rag_observation.tenant_id, result]));
    assert.equal(byTenant.get("globex")?.output, "Globex: 30 days.", "B's stored result is unchanged");
    assert.equal(byTenant.get("globex")?.case_result_id, globex?.case_result_id);
    const acme = byTenant.get("acme");
    assert.ok(acme, "A's data is stored as A's");
    assert.equal(acme.output, "Acme overwrote this.");
    const claim = acme.rag_observation.malformed_attributes.find((note) => note.kind === "tenant_claim");
    assert.match(claim?.error ?? "", /claims tenant "globex", but its credential authenticated tenant "acme"/);
    recordAttack({ attack: "token A writes as tenant B (claim, forged resource attribute, B's trace and span ids)", outcome: "stored as A; B's result untouched; claim noted", peakRssMb: residentMemoryMb() });
  });
  /** A generation span of `trace` under `parent`, with its own answer: what another tenant would slip into a trace. */
  function generationSpan(trace: string, spanId: string, parent: string, answer: string) {
    const text = (value: string) => ({ stringValue: value });
    const attributes = [
      { key: "ragscope.stage", value: text("generate") },
      { key: "ragscope.answer", value: text(answer) },
    ];
    return JSON.stringify({
      resourceSpans: [{ resource: { attributes: [{ key: "service.name", value: text("shared-bot") }] }, scopeSpans: [{ spans: [{ traceId: trace, spanId, parentSpanId: parent, name: "rag.generate", kind: 1, startTimeUnixNano: "1700000000050000000", endTimeUnixNano: "1700000000060000000", attributes }] }] }],
    });
  }

  async function storedOf(trace: string) {
    assert.ok(await collector.waitUntilIdle(20_000));
    const rows = await queryRows<{ payload: string }>(collector.store.connection, "SELECT payload FROM {{database}}.case_results FINAL WHERE trace_id = {trace:String}", { trace });
    return new Map(rows.map((row) => caseResultSchema.parse(JSON.parse(row.payload))).map((result) => [result.rag_observation.tenant_id, result]));
  }

  test("a span A sends with B's trace id and a span id of its own never joins B's trace: not while it is open, not after it was stored", async () => {
    // While B's trace is open: B's root and A's generation span, in one quiet period.
    const open = "c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3";
    const bodyOf = (trace: string, answer: string) => request(answer).replaceAll(TRACE, trace);
    assert.equal((await post(TOKEN_B, bodyOf(open, "Globex: 30 days."))).status, 200);
    assert.equal((await post(TOKEN_A, generationSpan(open, "d4d4d4d4d4d4d4d4", ROOT, "Injected by acme while open."))).status, 200);
    await collector.flush();
    const whileOpen = await storedOf(open);
    assert.equal(whileOpen.get("globex")?.output, "Globex: 30 days.", "B's answer is its own");
    assert.equal(whileOpen.get("globex")?.rag_observation.partial_trace, false);
    assert.equal(whileOpen.get("acme")?.rag_observation.partial_trace, true, "A's span is a trace of A's, without a root");

    // After B's result was stored: A's late span must not re-open B's trace.
    const stored = "e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5";
    assert.equal((await post(TOKEN_B, bodyOf(stored, "Globex: 14 days."))).status, 200);
    assert.equal((await storedOf(stored)).get("globex")?.output, "Globex: 14 days.");
    assert.equal((await post(TOKEN_A, generationSpan(stored, "f6f6f6f6f6f6f6f6", ROOT, "Injected by acme later."))).status, 200);
    await collector.flush();
    const later = await storedOf(stored);
    assert.equal(later.get("globex")?.output, "Globex: 14 days.", "B's stored answer is unchanged");
    assert.equal(later.get("acme")?.rag_observation.partial_trace, true);
    recordAttack({ attack: "token A sends a span of its own into B's trace id (open, and already stored)", outcome: "a partial trace of A's; B's trace and result untouched", peakRssMb: residentMemoryMb() });
  });
});

describe("authentication settings that would quietly turn auth off", () => {
  for (const value of [",", " ", " , , "]) {
    test(`RAGSCOPE_AUTH_TOKENS=${JSON.stringify(value)} is refused at start`, () => {
      const settings = loadSettings({ environment: { RAGSCOPE_AUTH_TOKENS: value } });
      assert.equal(settings.ok, false);
      assert.match((settings.ok ? [] : settings.error).join("\n"), /RAGSCOPE_AUTH_TOKENS: holds no value, only separators or spaces/);
    });
  }

  test("a tenant token that is not a SHA-256 digest is refused with how to make one", () => {
    const settings = loadSettings({ environment: { RAGSCOPE_TENANT_TOKENS: "acme=plaintext-token" } });
    assert.equal(settings.ok, false);
    assert.match((settings.ok ? [] : settings.error).join("\n"), /SHA-256 of the token as 64 lowercase hex digits/);
    recordAttack({ attack: "auth configured as \",\" / spaces / a plain token", outcome: "refused at start, auth never silently off" });
  });
});
