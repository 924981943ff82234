/**
 * `ragscope serve` with two tenants, as the tenant-isolation suites (test/security/) start it: an ingest token
 * each for tenants acme and globex (RAGSCOPE_TENANT_TOKENS), UI tokens for alice of acme, bob of globex and an
 * operator of every tenant (RAGSCOPE_UI_TENANT_TOKENS; no token without a tenant), and spans sent as one
 * tenant's application sends them. Only the tokens' digests reach serve, as an operator configures it.
 */
import assert from "node:assert/strict";
import { tokenDigestHex } from "../../collector/01-receive/bearer-authorization.js";
import { startServeWithUi, type ServeWithUi } from "./serve-with-ui.js";

export interface TwoTenantTokens {
  ingestAcme: string;
  ingestGlobex: string;
  alice: string;
  bob: string;
  operator: string;
}

/** @param environment more settings of serve (the judge, the sample rate), added to the tokens'. */
export function startTwoTenantServe(dataDir: string, tokens: TwoTenantTokens, environment: Record<string, string> = {}): Promise<ServeWithUi> {
  return startServeWithUi(dataDir, {
    RAGSCOPE_QUIET_PERIOD_MS: "200",
    RAGSCOPE_TENANT_TOKENS: `acme=${tokenDigestHex(tokens.ingestAcme)},globex=${tokenDigestHex(tokens.ingestGlobex)}`,
    RAGSCOPE_UI_TOKENS: "",
    RAGSCOPE_UI_TENANT_TOKENS: `alice:acme=${tokenDigestHex(tokens.alice)},bob:globex=${tokenDigestHex(tokens.bob)},operator:*=${tokenDigestHex(tokens.operator)}`,
    ...environment,
  });
}

/** POSTs an OTLP/JSON body with a tenant's ingest token; serve must accept it (200). */
export async function sendAsTenant(serve: ServeWithUi, ingestToken: string, body: string): Promise<void> {
  const answer = await fetch(`${serve.receiverUrl}/v1/traces`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${ingestToken}` }, body });
  assert.equal(answer.status, 200, await answer.text());
}
