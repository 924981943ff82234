/**
 * A chunk the principal may not read is a permission violation wherever
 * retrieval returned it, before a rerank too (seed 004 §八: 用户是否能检索到
 * 无权访问的文档). Run as a user meets it: `ragscope serve` as a subprocess,
 * the README's own stage-wrapper example (README "Instrumenting a RAG
 * service", app.mjs, written out verbatim) run against it with the package
 * resolved by name, and the result read back through serve's read API.
 *
 * Worked by hand from the README's app: the toy search scores a chunk by the
 * query words it contains. For "How fast is a refund" (the rewrite drops "?")
 * no chunk holds "how", "fast", "is", "a" or "refund" ("Refunds" is another
 * word), so all three score 0 and keep the corpus order: refund-1, points-1,
 * fraud-1. The first stage returns those 3 (topK 3), the rerank keeps the
 * first 2. The principal's groups are ["customer"]; fraud-1's ACL is
 * ["staff"]: it was retrieved for a principal who may not read it, and then
 * dropped by the rerank. Violations 1 of 3 judged chunks.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { evaluationResultIdFor } from "../../../contracts/ids.js";
import { readmeExamples } from "../adoption/readme-examples.js";
import { runApplication, writeApplication } from "../../support/application-beside-package.js";
import { startServeWithUi, type ServeWithUi } from "../../support/serve-with-ui.js";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
/** A bound on waiting for serve to store the traces; generous for a shared machine, not an assertion on speed. */
const WAIT_MS = 60_000;

interface Evaluation {
  evaluation_result_id: string;
  evaluator_id: string;
  evaluator_version: string;
  outcome: string;
  reason: string;
  metric_values: Record<string, number | null>;
  evidence_refs: string[];
}

let folder: string;
let serve: ServeWithUi | undefined;

before(async () => {
  folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-permission-rerank-"));
  // The application imports "ragscope/instrumentation": the package is this checkout (its dist), found by name.
  const app = (await readmeExamples(path.join(projectRoot, "README.md"))).get("app.mjs");
  assert.ok(app, "README.md has the app.mjs example");
  await writeApplication(folder, "app.mjs", app);
  serve = await startServeWithUi(path.join(folder, "data"), { RAGSCOPE_QUIET_PERIOD_MS: "200" });
});

after(async () => {
  if (serve !== undefined && serve.child.exitCode === null) {
    serve.child.kill("SIGTERM");
    await serve.exited;
  }
  await rm(folder, { recursive: true, force: true });
});


async function storedTraces(uiUrl: string, count: number): Promise<{ caseResultId: string; query: string }[]> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const listed = (await (await fetch(`${uiUrl}/api/traces?limit=10`)).json()) as { traces: { caseResultId: string; query: string }[] };
    if (listed.traces.length >= count || Date.now() > deadline) return listed.traces;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

test("the README app: a chunk the customer may not read, retrieved before the rerank and dropped by it, fails retrieval.permission and says where it appeared", async () => {
  const receiver = /OTLP\/HTTP on (http:\/\/[^/\s]+)\/v1\/traces/.exec(serve!.output())?.[1];
  assert.ok(receiver, serve!.output());
  const ran = await runApplication(folder, "app.mjs", receiver);
  assert.equal(ran.code, 0, ran.output);

  const traces = await storedTraces(serve!.uiUrl, 2);
  const refund = traces.find((trace) => trace.query === "How fast is a refund?");
  assert.ok(refund, JSON.stringify(traces));
  const detail = (await (await fetch(`${serve!.uiUrl}/api/traces/${refund.caseResultId}`)).json()) as { caseResult: { quality_status: string }; evaluationResults: Evaluation[] };
  const permission = detail.evaluationResults.find((item) => item.evaluator_id === "retrieval.permission")!;
  assert.equal(permission.outcome, "failed");
  assert.equal(permission.metric_values.permission_violation_rate, 1 / 3);
  assert.match(permission.reason, /chunks the principal may not read: fraud-1 \(acl staff; retrieved by the first stage, dropped by the rerank\)/);
  assert.deepEqual(permission.evidence_refs, ["chunk://fraud-1"]);
  // The check over every stage is the evaluator's version 2 (version 1 checked the final list only): stored results
  // of the two checks are told apart by their version, and by their id, which includes it (contracts/ids.ts).
  assert.equal(permission.evaluator_version, "2");
  assert.equal(permission.evaluation_result_id, evaluationResultIdFor(refund.caseResultId, "retrieval.permission", "2"));
  // A permission violation is a veto: the case fails, and its primary root cause is the leak, at the same stage.
  assert.equal(detail.caseResult.quality_status, "failed");
  const rootCause = detail.evaluationResults.find((item) => item.evaluator_id === "root_cause")!;
  assert.match(rootCause.reason, /^PERMISSION_LEAK: the principal may not read fraud-1 \(acl staff; retrieved by the first stage, dropped by the rerank\)/);
  // It never reached the prompt or the answer: the context and citation check finds no leak there (2 judged: refund-1, points-1).
  const reached = detail.evaluationResults.find((item) => item.evaluator_id === "online.permission_leak")!;
  assert.equal(reached.metric_values.permission_leak_rate, 0);

  // The Quality board does not read as all clear: beside "Permission leaks" 0 % (nothing denied reached the context or
  // the answer), retrieval's violations. "When do member points expire" scores points-1 first, then refund-1 and
  // fraud-1 (0 words each, corpus order): fraud-1 is again 1 of 3 judged chunks, so the mean over both requests is 1/3.
  const quality = (await (await fetch(`${serve!.uiUrl}/api/quality`)).json()) as { board: { layers: { title: string; aggregates: { name: string; label: string; value: number | null; samples: number }[] }[] } };
  const boundaries = quality.board.layers.find((layer) => layer.title === "Boundaries")!;
  const row = (name: string) => boundaries.aggregates.find((aggregate) => aggregate.name === name);
  assert.deepEqual([row("permission_leak_rate")?.label, row("permission_leak_rate")?.value, row("permission_leak_rate")?.samples], ["Permission leaks", 0, 2]);
  const violations = row("permission_violation_rate");
  assert.ok(violations, JSON.stringify(boundaries.aggregates.map((aggregate) => aggregate.name)));
  assert.equal(violations.label, "Permission violations in retrieval");
  assert.equal(violations.samples, 2);
  assert.ok(Math.abs(violations.value! - 1 / 3) < 1e-12, String(violations.value));
  const page = await (await fetch(`${serve!.uiUrl}/quality`)).text();
  assert.match(page, /<tr data-aggregate="permission_violation_rate"><td>Permission violations in retrieval <span class="muted">permission_violation_rate<\/span><\/td>\s*<td class="value" data-value="0\.333/);

  serve!.child.kill("SIGTERM");
  assert.equal(await serve!.exited, 0, serve!.output());

  // `ragscope report` over the same store: its Boundaries panel (the Grafana board's) shows them beside the leaks.
  const report = spawnSync(process.execPath, [path.join(projectRoot, "bin/ragscope.js"), "report", "--data-dir", path.join(folder, "data"), "--out", path.join(folder, "report.html")], {
    cwd: projectRoot,
    encoding: "utf8",
    env: { ...process.env, RAGSCOPE_CONFIG: "", RAGSCOPE_CLICKHOUSE_URL: "" },
  });
  assert.equal(report.status, 0, report.stdout + report.stderr);
  const line = report.stdout.split("\n").find((text) => text.startsWith("  Boundaries: rates over the range: "));
  assert.ok(line, report.stdout);
  assert.match(line, / · Permission leaks 0\.0% \(of 2 checked\) · Permission violations in retrieval 33\.3% \(of 2 checked\)$/);
});
