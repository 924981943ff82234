/**
 * Agreement between two reviewers on the values they gave, against scikit-learn: the values in the judge
 * calibration's buckets, Cohen's kappa plain, linear and quadratic weighted
 * (test/data/ui/reviewer-value-agreement-references.json, recorded by record-reviewer-value-agreement.py beside it).
 * Before, the reviewers' "weighted" kappas were taken on pass / fail, where with two categories they equal the plain
 * kappa: the ceiling the judge's bucket kappas are read against was on another scale. Now the verdicts' statistics
 * carry no weighted kappa, and `ordinal` carries the buckets'. The UI server in-process on 127.0.0.1 over the
 * in-memory store; the labels imported with each reviewer's token, read back over HTTP.
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { createMemoryStore } from "../../../store/memory/memory-store.js";
import { startUiServer, type UiServer } from "../../../ui/ui-server.js";
import { buildCaseResult, judgeVerdict } from "../../support/case-results.js";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const references = JSON.parse(await readFile(path.join(projectRoot, "test/data/ui/reviewer-value-agreement-references.json"), "utf8")) as {
  alice: number[];
  bob: number[];
  verdict_kappa: number;
  bucket_kappa: number;
  bucket_linear_kappa: number;
  bucket_quadratic_kappa: number;
};
const TOKENS = { alice: "alice-token-0123456789abcdef", bob: "bob-token-0123456789abcdef00" };
type Statistics = { items: number; kappa: number | null; linearWeightedKappa: number | null; quadraticWeightedKappa: number | null };

describe("reviewers' agreement on their values, against scikit-learn", () => {
  let server: UiServer;

  before(async () => {
    const store = createMemoryStore();
    const written = await store.results.write(
      references.alice.map((_, index) => {
        const id = `cr_values_${index}`;
        return {
          caseResult: { ...buildCaseResult({ output: `answer ${index}` }), case_result_id: id, quality_status: "review_required" as const, started_at: new Date(Date.parse("2026-07-08T09:00:00Z") + index * 1000).toISOString() },
          evaluationResults: [judgeVerdict(id, "faithfulness", index % 2 === 0)],
        };
      }),
    );
    assert.ok(written.ok);
    server = await startUiServer({ host: "127.0.0.1", port: 0, store, access: { tokens: new Map(Object.entries(TOKENS).map(([reviewer, token]) => [token, reviewer])) } });
    for (const [reviewer, token] of Object.entries(TOKENS)) {
      const values = reviewer === "alice" ? references.alice : references.bob;
      const lines = values.map((value, index) => JSON.stringify({ case_result_id: `cr_values_${index}`, metric: "faithfulness", verdict: value >= 0.5 ? "pass" : "fail", value, labeled_at: "2026-07-08T10:00:00Z" }));
      const imported = await fetch(`${server.url}/api/labels.jsonl`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/x-ndjson" }, body: `${lines.join("\n")}\n` });
      assert.equal(imported.status, 200, await imported.text());
    }
  });
  after(() => server?.close());

  test("the values' bucket kappas are scikit-learn's; the verdicts' carry no weighted kappa", async () => {
    const answer = (await (await fetch(`${server.url}/api/review`, { headers: { authorization: `Bearer ${TOKENS.alice}` } })).json()) as {
      agreement: { reviewers: { metric: string; reviewers: string[] | null; statistics: Statistics; ordinal: Statistics | null }[] };
    };
    const entry = answer.agreement.reviewers.find((item) => item.metric === "faithfulness");
    assert.ok(entry, JSON.stringify(answer.agreement.reviewers));
    assert.deepEqual(entry.reviewers, ["alice", "bob"]);
    assert.equal(entry.statistics.items, 12);
    assert.ok(Math.abs(entry.statistics.kappa! - references.verdict_kappa) < 1e-12, `${entry.statistics.kappa} vs ${references.verdict_kappa}`);
    assert.deepEqual([entry.statistics.linearWeightedKappa, entry.statistics.quadraticWeightedKappa], [null, null]);
    const ordinal = entry.ordinal!;
    assert.equal(ordinal.items, 12);
    for (const [name, actual, expected] of [
      ["kappa", ordinal.kappa, references.bucket_kappa],
      ["linear", ordinal.linearWeightedKappa, references.bucket_linear_kappa],
      ["quadratic", ordinal.quadraticWeightedKappa, references.bucket_quadratic_kappa],
    ] as const) {
      assert.ok(Math.abs(actual! - expected) < 1e-12, `${name}: ${actual} vs scikit-learn ${expected}`);
    }
  });
});
