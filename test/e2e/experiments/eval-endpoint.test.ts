/**
 * `ragscope eval --endpoint`: the cases go to a collector already running —
 * `ragscope serve` started here as a subprocess, holding the example dataset —
 * and the run's results come back through serve's read API. The same verdicts
 * as the in-process run (eval-command.test.ts), and a collector that never
 * stores the cases gives, after the bounded wait, exit 2 with the missing cases named.
 */
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { parse } from "yaml";
import { oneRequestOtlp } from "../../support/one-request-otlp.js";
import { startServeWithUi, type ServeWithUi } from "../../support/serve-with-ui.js";
import { projectRoot, runRagscope, tasksFolder } from "./support/run-ragscope.js";

const dataset = "examples/datasets/policy-regression.yaml";

describe("ragscope eval --endpoint (a running collector)", () => {
  let folder: string;
  let serve: ServeWithUi | null = null;
  let receiverUrl: string;
  let readApiUrl: string;

  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-eval-endpoint-"));
    serve = await startServeWithUi(path.join(folder, "serve-store"), { RAGSCOPE_QUIET_PERIOD_MS: "300" }, { arguments: ["--dataset", dataset], readyLine: /Eval Cases loaded/, timeoutMs: 60_000 });
    receiverUrl = serve.receiverUrl;
    readApiUrl = serve.uiUrl;
  });
  after(async () => {
    await serve?.stop();
    await rm(folder, { recursive: true, force: true });
  });

  test("the example task against serve: every case evaluated there and read back, the verdicts of the in-process run", async () => {
    const output = path.join(folder, "remote.json");
    const result = await runRagscope(["eval", "--dataset", dataset, "--task", "examples/policy-assistant/eval-task.ts", "--run-id", "remote-run", "--endpoint", receiverUrl, "--read-api", readApiUrl, "--output", output, "--data-dir", path.join(folder, "unused")]);
    // The example pipeline fails P0 and threshold rules by design: the gate blocks.
    assert.equal(result.status, 1, result.stderr + result.stdout);
    assert.match(result.stdout, new RegExp(`Stored in the collector at ${receiverUrl.replace(/\./g, "\\.")}`));
    const results = JSON.parse(await readFile(output, "utf8"));
    assert.deepEqual(results.problems, []);
    assert.equal(results.case_results.length, 26);
    assert.ok(results.case_results.every((item: { run_id: string }) => item.run_id === "remote-run"));
    const verdict = (caseId: string) => results.case_results.find((item: { case_id: string }) => item.case_id === caseId)?.quality_status;
    assert.equal(verdict("rag_coupon_per_order_001"), "passed");
    assert.equal(verdict("rag_refund_arrival_001"), "failed");
    // A right refusal of an unanswerable case, flagged on the trace, is a judged pass (README "Verdicts"): the three
    // unanswerable cases the example refuses pass, beside the 12 answered ones.
    assert.equal(verdict("rag_crypto_payment_unanswerable_001"), "passed");
    assert.equal(results.case_results.filter((item: { quality_status: string }) => item.quality_status === "passed").length, 15);
    // The Evaluation Results came back with the cases (gold-dependent metrics are present).
    assert.ok(results.evaluation_results.some((item: { metric_values: Record<string, number | null> }) => typeof item.metric_values.recall_at_5 === "number"));
    // serve stored the run: its read API lists it (the in-process store was never written).
    const listed = (await (await fetch(`${readApiUrl}/api/traces?run=remote-run&limit=200`)).json()) as { traces: unknown[] };
    assert.equal(listed.traces.length, 26);
    // The run's lineage is recorded in serve's store through its read API (eval-endpoint-lineage.test.ts reads it back).
    assert.doesNotMatch(results.notes.join("\n"), /run lineage is in this report and the JSON output only/);
  });

  test("a collector that never stores the cases: after the bounded wait, exit 2 naming the missing cases; an earlier run's id is refused before any case runs", async () => {
    // An OTLP endpoint that accepts every export and keeps nothing (a collector losing data); results are read from serve.
    const sink: Server = createServer((request, response) => {
      request.resume();
      request.on("end", () => response.writeHead(200, { "Content-Type": "application/json" }).end("{}"));
    });
    await new Promise<void>((resolve) => sink.listen(0, "127.0.0.1", resolve));
    try {
      // Two of the cases serve holds, unchanged (eval compares the file's cases with serve's before any case runs).
      const small = path.join(folder, "two-cases.json");
      const whole = parse(await readFile(path.join(projectRoot, dataset), "utf8")) as { cases: unknown[] } & Record<string, unknown>;
      await writeFile(small, JSON.stringify({ ...whole, cases: whole.cases.slice(0, 2) }));
      const endpoint = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;
      const result = await runRagscope(["eval", "--dataset", small, "--task", path.join(tasksFolder, "coin-task.ts"), "--run-id", "lost-run", "--endpoint", endpoint, "--read-api", readApiUrl, "--evaluation-timeout-ms", "1500", "--data-dir", path.join(folder, "unused")]);
      assert.equal(result.status, 2, result.stderr + result.stdout);
      assert.match(result.stdout, /Could not decide: run lost-run: 2 case\(s\) not evaluated within 1500 ms \(--evaluation-timeout-ms\) by the collector at .*: rag_refund_member_points_001@v2, rag_shipping_free_threshold_001@v1/);
      assert.match(result.stdout, /Decision: UNDECIDED/);

      // The run id of the first test again: serve holds its 26 rows, an earlier run's. A run id names one run, so the
      // eval is refused before any case runs (before, it ran and waited for rows of its own among the earlier ones).
      const again = await runRagscope(["eval", "--dataset", dataset, "--task", "examples/policy-assistant/eval-task.ts", "--run-id", "remote-run", "--endpoint", endpoint, "--read-api", readApiUrl, "--evaluation-timeout-ms", "1500", "--data-dir", path.join(folder, "unused")]);
      assert.equal(again.status, 2, again.stderr + again.stdout);
      assert.equal(again.stdout, "");
      // Its lineage is in serve's store now, so the time given is when the run was recorded (before: its newest case's start).
      assert.match(again.stderr, /^ragscope eval: --run-id remote-run: run "remote-run" already holds 26 stored cases \(recorded \d{4}-\d\d-\d\dT[\d:.]+Z\) in the collector at .*; a run id names one run/);
    } finally {
      await new Promise((resolve) => sink.close(resolve));
    }
  });

  test("a case of a run sent again counts once: the run's id is refused naming its two cases, not its three requests", async () => {
    const small = path.join(folder, "two-cases-resent.json");
    const whole = parse(await readFile(path.join(projectRoot, dataset), "utf8")) as { cases: { case_id: string; case_version: string }[] } & Record<string, unknown>;
    await writeFile(small, JSON.stringify({ ...whole, cases: whole.cases.slice(0, 2) }));
    const run = ["eval", "--dataset", small, "--task", path.join(tasksFolder, "coin-task.ts"), "--run-id", "resent-run", "--endpoint", receiverUrl, "--read-api", readApiUrl, "--data-dir", path.join(folder, "unused")];
    const first = await runRagscope(run);
    assert.notEqual(first.status, 2, first.stderr + first.stdout);
    // A harness retries the first case from a renamed service: the same run, case and version, so the same result id,
    // stored under another request (another service's rows).
    const retried = whole.cases[0]!;
    const answer = await fetch(`${receiverUrl}/v1/traces`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: oneRequestOtlp({
        traceId: "e2000000000000000000000000000001",
        serviceName: "retrying-harness",
        startMs: Date.now() - 1_000,
        spans: [{ name: "rag.request", attributes: { "openinference.span.kind": "CHAIN", "ragscope.stage": "request", "ragscope.run_id": "resent-run", "ragscope.case_id": retried.case_id, "ragscope.case_version": String(retried.case_version), "ragscope.query": "retried", "ragscope.answer": "retried" } }],
      }),
    });
    assert.equal(answer.status, 200, await answer.text());
    // Polled (bounded) until the list holds the retry beside the run's two requests.
    for (let attempt = 0; ; attempt += 1) {
      const listed = (await (await fetch(`${readApiUrl}/api/traces?run=resent-run&limit=200`)).json()) as { traces: { serviceName: string }[] };
      if (listed.traces.some((trace) => trace.serviceName === "retrying-harness")) {
        assert.equal(listed.traces.length, 3, "the list has a row per request");
        break;
      }
      if (attempt >= 600) assert.fail(`the retried request was not listed within 60 s\n${serve?.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // Before, the eval counted the list's rows: "already holds 3 stored cases", and a baseline read its case twice.
    const again = await runRagscope(run);
    assert.equal(again.status, 2, again.stderr + again.stdout);
    assert.match(again.stderr, /^ragscope eval: --run-id resent-run: run "resent-run" already holds 2 stored cases /);
  });

  test("cases the running collector does not hold: refused before any case runs (exit 2), saying how to load them", async () => {
    const unknown = path.join(folder, "not-in-serve.json");
    await writeFile(unknown, JSON.stringify({ dataset_id: "elsewhere", dataset_version: "1", cases: [{ case_id: "not_loaded", case_version: "1", input: "a question serve never saw" }] }));
    const result = await runRagscope(["eval", "--dataset", unknown, "--task", path.join(tasksFolder, "coin-task.ts"), "--run-id", "not-loaded-run", "--endpoint", receiverUrl, "--read-api", readApiUrl, "--data-dir", path.join(folder, "unused")]);
    assert.equal(result.status, 2, result.stderr + result.stdout);
    // Before, the case ran and was evaluated without its gold data, and only the results said so.
    assert.equal(result.stdout, "");
    assert.match(result.stderr, /not-in-serve\.json: 1 case\(s\) are not stored in the collector at .*: not_loaded@1; they would be evaluated without their gold data — load them first: ragscope dataset push .*not-in-serve\.json --clickhouse-url <its ClickHouse server> \(an embedded store is locked while serve runs: stop serve, push with --data-dir <its data dir>, start it again\), or restart serve with --dataset .*not-in-serve\.json/);
    const listed = (await (await fetch(`${readApiUrl}/api/traces?run=not-loaded-run&limit=200`)).json()) as { traces: unknown[] };
    assert.equal(listed.traces.length, 0, "no case ran");
  });

  test("--endpoint without --read-api, and a read API that does not answer, are clear errors (exit 2)", async () => {
    const withoutReadApi = await runRagscope(["eval", "--dataset", dataset, "--task", "examples/policy-assistant/eval-task.ts", "--endpoint", receiverUrl]);
    assert.equal(withoutReadApi.status, 2);
    assert.match(withoutReadApi.stderr, /--endpoint needs --read-api/);
    const one = path.join(folder, "one-case.json");
    await writeFile(one, JSON.stringify({ dataset_id: "one", dataset_version: "1", cases: [{ case_id: "only", case_version: "1", input: "a question" }] }));
    const closed = await runRagscope(["eval", "--dataset", one, "--task", path.join(tasksFolder, "coin-task.ts"), "--run-id", "nowhere", "--endpoint", receiverUrl, "--read-api", "http://127.0.0.1:9", "--evaluation-timeout-ms", "1000"]);
    assert.equal(closed.status, 2, closed.stdout);
    assert.match(closed.stderr, /the read API at http:\/\/127\.0\.0\.1:9 did not answer/);
  });
});
