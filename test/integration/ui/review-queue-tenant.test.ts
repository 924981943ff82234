/**
 * The review queue names each row's tenant. A reviewer whose token reads two
 * tenants saw two rows of case "dup_5" (one per tenant) that looked the same
 * but for the link: which tenant's case each was could only be told by
 * opening it. The queue now has a tenant column, as the traces list does
 * ("—" for a request without a tenant).
 * On the ClickHouse store (embedded chDB), which scopes reads to the token's
 * tenants; the UI server in-process with a tenant token
 * (RAGSCOPE_UI_TENANT_TOKENS's format) for acme and globex.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { tokenDigestHex } from "../../../collector/01-receive/bearer-authorization.js";
import { parseUiTenantTokens } from "../../../ui/access/ui-access.js";
import { startUiServer, type UiServer } from "../../../ui/ui-server.js";
import { buildCaseResult, judgeVerdict } from "../../support/case-results.js";
import { temporaryStore, type TemporaryStore } from "../../support/temporary-store.js";

const DANA = "ui-token-of-dana-at-two-tenants-73";
const OPERATOR = "ui-token-of-the-operator-of-all-91";
const ROWS = [
  { caseResultId: "cr_dup_5_acme", tenant: "acme", trace: "1af7651916cd43dd8448eb211c80319c" },
  { caseResultId: "cr_dup_5_globex", tenant: "globex", trace: "2af7651916cd43dd8448eb211c80319c" },
  { caseResultId: "cr_dup_5_none", tenant: null, trace: "3af7651916cd43dd8448eb211c80319c" },
];

describe("the review queue's tenant column", () => {
  let temporary: TemporaryStore;
  let server: UiServer;

  before(async () => {
    temporary = await temporaryStore();
    const written = await temporary.store.results.write(
      ROWS.map((row, index) => {
        const built = buildCaseResult({ output: "an answer", caseId: "dup_5" });
        return {
          caseResult: { ...built, case_result_id: row.caseResultId, rag_observation: { ...built.rag_observation, tenant_id: row.tenant }, trace_id: row.trace, quality_status: "review_required" as const, started_at: `2026-07-08T09:00:0${index}.000Z` },
          evaluationResults: [judgeVerdict(row.caseResultId, "faithfulness", true)],
        };
      }),
    );
    assert.ok(written.ok);
    const tenantTokens = parseUiTenantTokens(`dana:acme|globex=${tokenDigestHex(DANA)}`);
    assert.ok(tenantTokens.ok);
    server = await startUiServer({ host: "127.0.0.1", port: 0, store: temporary.store, access: { tokens: new Map([[OPERATOR, "operator"]]), tenantTokens: tenantTokens.value } });
  });
  after(async () => {
    await server?.close();
    await temporary?.cleanup();
  });

  /** The queue's rows as [case result id, case cell's text, tenant cell] for a token, and its header. */
  const queueRows = async (token: string) => {
    const answer = await fetch(`${server.url}/review`, { headers: { authorization: `Bearer ${token}` } });
    const page = await answer.text();
    assert.equal(answer.status, 200, page);
    const header = /<table id="queue"><thead><tr>(.*?)<\/tr><\/thead>/.exec(page)?.[1] ?? "";
    const rows = [...page.matchAll(/<tr data-case-result-id="([^"]+)">([\s\S]*?)<\/tr>/g)].map((row) => {
      const cells = [...row[2]!.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((cell) => cell[1]!.replace(/<[^>]+>/g, ""));
      return [row[1]!, cells[1]!, cells[2]!];
    });
    return { header, rows: rows.sort((first, second) => (first[0]! < second[0]! ? -1 : 1)) };
  };

  test("two rows of one case id in two tenants each name their tenant", async () => {
    const { header, rows } = await queueRows(DANA);
    assert.equal(header, "<th>started (UTC)</th><th>case</th><th>tenant</th><th>verdict</th><th>reviewers</th><th>you</th><th>query</th>");
    // The request without a tenant is outside the token's tenants: not listed.
    assert.deepEqual(rows, [["cr_dup_5_acme", "dup_5", "acme"], ["cr_dup_5_globex", "dup_5", "globex"]]);
  });

  test("a request without a tenant reads '—' there, to a token of every tenant", async () => {
    const { rows } = await queueRows(OPERATOR);
    assert.deepEqual(rows, [["cr_dup_5_acme", "dup_5", "acme"], ["cr_dup_5_globex", "dup_5", "globex"], ["cr_dup_5_none", "dup_5", "—"]]);
  });
});
