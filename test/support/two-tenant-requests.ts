/**
 * `ragscope serve` with two tenants (two-tenant-serve.ts) on a data folder of its own, the given requests sent as
 * each tenant's application sends them and stored: what the trace id lookup suites (test/security/trace-id-lookup,
 * review-trace-id-lookup) start from. The operator's list of every stored request tells the tests each request's
 * Case Result id; `read` asks the UI as a reader does (a GET with its token, redirects not followed, so a test sees
 * the 303 and where it goes).
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { TraceSummary } from "../../store/ports/trace-reader.js";
import { listedOnceStored } from "./listed-traces.js";
import type { ServeWithUi } from "./serve-with-ui.js";
import { sendAsTenant, startTwoTenantServe, type TwoTenantTokens } from "./two-tenant-serve.js";

/** An OTLP/JSON body and the ingest token of the tenant that sends it. */
export interface SentAsTenant {
  ingestToken: string;
  body: string;
}

export interface TwoTenantRequests {
  serve: ServeWithUi;
  /** Every stored request as the operator lists it. */
  everything: TraceSummary[];
  /** GET `address` of the UI with `token`, without following a redirect. */
  read(token: string, address: string): Promise<Response>;
  /** The request `tenant` sent under `traceId`, as the operator lists it (asserted to be there). */
  requestOf(tenant: string, traceId: string): TraceSummary;
  /** Stops serve and removes its folder. */
  stop(): Promise<void>;
}

/** `name` names the temporary folder; `sent` in order, each accepted (200), then polled until all are stored. */
export async function startTwoTenantRequests(name: string, tokens: TwoTenantTokens, sent: readonly SentAsTenant[]): Promise<TwoTenantRequests> {
  const folder = await mkdtemp(path.join(os.tmpdir(), `ragscope-${name}-`));
  let serve: ServeWithUi | null = null;
  try {
    serve = await startTwoTenantServe(path.join(folder, "data"), tokens);
    for (const request of sent) await sendAsTenant(serve, request.ingestToken, request.body);
    const everything = await listedOnceStored(serve, (traces) => traces.length >= sent.length, { token: tokens.operator });
    assert.equal(everything.length, sent.length, "one stored request a request sent");
    const running = serve;
    return {
      serve: running,
      everything,
      read: (token, address) => fetch(`${running.uiUrl}${address}`, { redirect: "manual", headers: { authorization: `Bearer ${token}` } }),
      requestOf(tenant, traceId) {
        const found = everything.find((trace) => trace.tenantId === tenant && trace.traceId === traceId);
        assert.ok(found !== undefined, `${tenant}'s request of ${traceId} is listed to the operator`);
        return found;
      },
      async stop() {
        await running.stop();
        await rm(folder, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await serve?.stop();
    await rm(folder, { recursive: true, force: true });
    throw error;
  }
}
