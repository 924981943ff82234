/**
 * Agreement on the review queue against scikit-learn: the LLM judge's stored
 * verdicts (Evaluation Results `judge.<metric>`) and two reviewers' labels,
 * imported through the UI's label import with each reviewer's token (a
 * reviewer who passes a case labels every metric it offers for review, in the
 * form as in a file), give the
 * Cohen's kappa per metric that sklearn.metrics.cohen_kappa_score gives on the
 * same verdicts (test/data/ui/review-agreement-references.json, recorded by
 * record-review-agreement.py beside it) — between the judge and the
 * reviewers, and between the reviewers — and the review page shows them.
 * The UI server runs in-process on 127.0.0.1 with the in-memory store.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { createMemoryStore } from "../../../store/memory/memory-store.js";
import { startUiServer, type UiServer } from "../../../ui/ui-server.js";
import { buildCaseResult, judgeVerdict } from "../../support/case-results.js";
import { signIn } from "../../support/sign-in.js";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const chromiumPath = process.env.RAGSCOPE_CHROMIUM ?? "/usr/bin/chromium";
const references = JSON.parse(await readFile(path.join(projectRoot, "test/data/ui/review-agreement-references.json"), "utf8")) as {
  verdicts: Record<string, Record<string, string>>;
  judge_kappa: Record<string, number>;
  judge_pairs: Record<string, number>;
  reviewer_kappa: Record<string, number>;
};
const TOKENS = { alice: "alice-token-0123456789abcdef", bob: "bob-token-0123456789abcdef00" };
const verdictOf = (letter: string) => (letter === "p" ? "pass" : "fail");


describe("judge and reviewer agreement on the review queue, against scikit-learn", () => {
  let server: UiServer;

  before(async () => {
    const store = createMemoryStore();
    const metrics = Object.keys(references.verdicts);
    const caseCount = Math.max(...metrics.map((metric) => references.verdicts[metric]!.judge!.length));
    const written = await store.results.write(
      Array.from({ length: caseCount }, (_, index) => {
        const id = `cr_agreement_${index}`;
        const evaluationResults = metrics.filter((metric) => index < references.verdicts[metric]!.judge!.length).map((metric) => judgeVerdict(id, metric, references.verdicts[metric]!.judge![index]! === "p"));
        return { caseResult: { ...buildCaseResult({ output: `answer ${index}` }), case_result_id: id, quality_status: "review_required" as const, started_at: new Date(Date.parse("2026-07-08T09:00:00Z") + index * 1000).toISOString() }, evaluationResults };
      }),
    );
    assert.ok(written.ok);
    server = await startUiServer({ host: "127.0.0.1", port: 0, store, access: { tokens: new Map(Object.entries(TOKENS).map(([reviewer, token]) => [token, reviewer])) } });
    for (const [reviewer, token] of Object.entries(TOKENS)) {
      const lines: string[] = [];
      for (let index = 0; index < caseCount; index += 1) {
        for (const metric of metrics) {
          const letter = references.verdicts[metric]![reviewer]?.[index];
          if (letter !== undefined) lines.push(JSON.stringify({ case_result_id: `cr_agreement_${index}`, metric, verdict: verdictOf(letter), labeled_at: "2026-07-08T10:00:00Z" }));
        }
      }
      const imported = await fetch(`${server.url}/api/labels.jsonl`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/x-ndjson" }, body: `${lines.join("\n")}\n` });
      assert.equal(imported.status, 200, await imported.text());
    }
  });
  after(() => server?.close());

  test("the read API's kappas are scikit-learn's, with the number of pairs", async () => {
    const answer = (await (await fetch(`${server.url}/api/review`, { headers: { authorization: `Bearer ${TOKENS.alice}` } })).json()) as {
      agreement: { judge: { judgeId: string; metric: string; pairs: number; passFail: { kappa: number | null } }[]; reviewers: { metric: string; statistics: { items: number; kappa: number | null } }[] };
    };
    for (const [metric, expected] of Object.entries(references.judge_kappa)) {
      const entry = answer.agreement.judge.find((item) => item.metric === metric);
      assert.ok(entry, `judge agreement on ${metric}`);
      assert.equal(entry.judgeId, "judge-a");
      assert.equal(entry.pairs, references.judge_pairs[metric]);
      assert.ok(Math.abs(entry.passFail.kappa! - expected) < 1e-12, `${metric}: ${entry.passFail.kappa} vs sklearn ${expected}`);
    }
    for (const [metric, expected] of Object.entries(references.reviewer_kappa)) {
      const entry = answer.agreement.reviewers.find((item) => item.metric === metric);
      assert.ok(entry, `reviewer agreement on ${metric}`);
      assert.equal(entry.statistics.items, references.verdicts[metric]!.alice!.length);
      assert.ok(Math.abs(entry.statistics.kappa! - expected) < 1e-12, `${metric}: ${entry.statistics.kappa} vs sklearn ${expected}`);
    }
  });

  test("the review page shows them in Chromium", async () => {
    assert.ok(existsSync(chromiumPath), `Chromium is needed at ${chromiumPath}`);
    const browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"] });
    try {
      const page = await browser.newPage();
      await signIn(page, `${server.url}/review`, TOKENS.bob);
      for (const [metric, expected] of Object.entries(references.judge_kappa)) {
        assert.equal(await page.locator(`#judge-kappa tr[data-metric="${metric}"] .items`).textContent(), String(references.judge_pairs[metric]));
        assert.ok(((await page.locator(`#judge-kappa tr[data-metric="${metric}"] .kappa`).textContent()) ?? "").startsWith(expected.toFixed(3)), metric);
      }
      assert.ok(((await page.locator('#reviewer-kappa tr[data-metric="faithfulness"] .kappa').textContent()) ?? "").startsWith(references.reviewer_kappa.faithfulness!.toFixed(3)));
    } finally {
      await browser.close();
    }
  });
});
