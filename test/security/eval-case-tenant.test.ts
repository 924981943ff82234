/**
 * A tenant cannot borrow another tenant's Eval Case by naming its ids. A Case
 * Result finds its Eval Case by (case_id, case_version) alone, and a tenant
 * picks the ids its spans carry: tenant acme, guessing that tenant globex's
 * case is "case-001" version "1", sent a trace naming it and read the whole
 * case — globex's private question, gold chunks and reference answer — on its
 * own trace's page and in the read API, and the LLM judge was handed globex's
 * reference answer to grade acme's answer.
 *
 * As a user meets it: `ragscope dataset push` loads the cases (one of globex,
 * `context.tenant_id: globex`, and one that names no tenant), `ragscope serve`
 * runs as a child process with a tenant token per tenant for OTLP and for the
 * UI, and a fake OpenAI-compatible judge grading answer_correctness (which
 * needs the reference answer). Each check could fail: globex's own trace is
 * evaluated and judged against its case and shows it, and acme's trace naming
 * the shared case shows that one.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { recordAttack } from "../support/attack-report.js";
import { reply, startFakeChatCompletionsServer, type FakeChatCompletionsServer } from "../support/fake-chat-completions-server.js";
import type { ServeWithUi } from "../support/serve-with-ui.js";
import { oneRequestOtlp } from "../support/one-request-otlp.js";
import { sendAsTenant, startTwoTenantServe } from "../support/two-tenant-serve.js";

const ragscope = fileURLToPath(new URL("../../bin/ragscope.js", import.meta.url));

const INGEST_ACME = "ingest-token-of-acme-7d21aa";
const INGEST_GLOBEX = "ingest-token-of-globex-3f88bb";
const ALICE = "ui-token-of-alice-at-acme-90c1";
const BOB = "ui-token-of-bob-at-globex-12e7";
const OPERATOR = "ui-token-of-the-operator-5b3a";

/** Globex's gold data: none of it may reach acme's reader or acme's judge call. */
const GLOBEX_GOLD = ["GLOBEX-PRIVATE-QUESTION", "GLOBEX-GOLD-ANSWER", "globex-gold-chunk-7", "globex-private-dataset"];
const ACME_ANSWER = "acme answer to a guessed case";
const GLOBEX_ANSWER = "globex answer to its own case";

const DATASET = {
  dataset_id: "globex-private-dataset",
  dataset_version: "1",
  cases: [
    {
      case_id: "case-001",
      case_version: "1",
      input: "GLOBEX-PRIVATE-QUESTION: what is the refund window?",
      context: { tenant_id: "globex" },
      gold_evidence: [{ document_id: "globex-policy", chunk_id: "globex-gold-chunk-7" }],
      reference_answer: "GLOBEX-GOLD-ANSWER: 30 days",
    },
  ],
};
/** A case that names no tenant is shared: every tenant's traces use it. */
const SHARED_DATASET = {
  dataset_id: "shared-dataset",
  dataset_version: "1",
  cases: [{ case_id: "shared-001", case_version: "1", input: "what is the shipping time?", gold_evidence: [{ document_id: "shipping", chunk_id: "shared-chunk-1" }], reference_answer: "SHARED-REFERENCE: 5 days" }],
};

/** One request naming Eval Case `caseId` version 1 of run-1, with a retrieval. */
function otlp(traceId: string, caseId: string, answer: string): string {
  return oneRequestOtlp({
    traceId,
    serviceName: "bot",
    spans: [
      {
        name: "rag.request",
        attributes: {
          "openinference.span.kind": "CHAIN",
          "ragscope.stage": "request",
          "ragscope.run_id": "run-1",
          "ragscope.case_id": caseId,
          "ragscope.case_version": "1",
          "ragscope.query": "what is the refund window?",
          "ragscope.answer": answer,
        },
      },
      {
        name: "rag.retrieve",
        attributes: {
          "openinference.span.kind": "RETRIEVER",
          "ragscope.stage": "retrieve",
          "retrieval.documents.0.document.id": "some-chunk",
          "retrieval.documents.0.document.content": "refunds are possible",
        },
      },
    ],
  });
}

interface Listed {
  caseResultId: string;
  traceId: string;
  datasetId: string;
}

describe("a tenant's trace naming another tenant's Eval Case is evaluated, judged and shown without it", () => {
  let folder: string;
  let judge: FakeChatCompletionsServer;
  let serve: ServeWithUi | null = null;

  const read = (token: string, address: string) => fetch(`${serve!.uiUrl}${address}`, { headers: { authorization: `Bearer ${token}` } });
  const listed = async (token: string): Promise<Listed[]> => ((await (await read(token, "/api/traces?limit=200")).json()) as { traces: Listed[] }).traces;
  const send = (token: string, body: string) => sendAsTenant(serve!, token, body);
  /** Polls the operator's list (bounded) until the trace is stored. */
  async function storedTrace(traceId: string): Promise<Listed> {
    for (let attempt = 0; attempt < 600; attempt += 1) {
      const found = (await listed(OPERATOR)).find((trace) => trace.traceId === traceId);
      if (found !== undefined) return found;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`trace ${traceId} was not stored within 60 s:\n${serve!.output()}`);
  }

  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-eval-case-tenant-"));
    const dataDir = path.join(folder, "data");
    for (const [name, dataset] of [["globex.json", DATASET], ["shared.json", SHARED_DATASET]] as const) {
      await writeFile(path.join(folder, name), JSON.stringify(dataset));
      const pushed = spawnSync(process.execPath, [ragscope, "dataset", "push", path.join(folder, name), "--data-dir", dataDir], { encoding: "utf8", timeout: 120_000, env: { ...process.env, RAGSCOPE_CONFIG: "", RAGSCOPE_CLICKHOUSE_URL: "" } });
      assert.equal(pushed.status, 0, `${pushed.stdout}${pushed.stderr}`);
    }
    judge = await startFakeChatCompletionsServer();
    judge.respondWith(() => reply.json({ score: 3, reason: "scripted", confidence: "high" }));
    serve = await startTwoTenantServe(dataDir, { ingestAcme: INGEST_ACME, ingestGlobex: INGEST_GLOBEX, alice: ALICE, bob: BOB, operator: OPERATOR }, {
      RAGSCOPE_JUDGE_ENABLED: "true",
      RAGSCOPE_SAMPLE_RATE: "1",
      RAGSCOPE_JUDGE_BASE_URL: judge.baseUrl,
      RAGSCOPE_JUDGE_MODEL: "fake-judge",
      RAGSCOPE_JUDGE_METRICS: "answer_correctness",
      RAGSCOPE_JUDGE_STRUCTURED_OUTPUT: "json_object",
      RAGSCOPE_JUDGE_CONCURRENCY: "1",
    });
  });

  after(async () => {
    await serve?.stop();
    await judge?.close();
    await rm(folder, { recursive: true, force: true });
  });

  test("acme's reader sees none of globex's case on acme's own trace; globex's reader sees it on globex's", async () => {
    // acme first, alone: with one judge lane, its judge request (if any) is made before globex's trace is even sent.
    await send(INGEST_ACME, otlp("a1000000000000000000000000000001", "case-001", ACME_ANSWER));
    const acme = await storedTrace("a1000000000000000000000000000001");
    await send(INGEST_GLOBEX, otlp("b1000000000000000000000000000001", "case-001", GLOBEX_ANSWER));
    const globex = await storedTrace("b1000000000000000000000000000001");
    await send(INGEST_ACME, otlp("a1000000000000000000000000000002", "shared-001", ACME_ANSWER));
    const shared = await storedTrace("a1000000000000000000000000000002");

    for (const address of [`/api/traces/${acme.caseResultId}`, `/traces/${acme.caseResultId}`, "/api/traces?limit=200", "/traces", `/review/${acme.caseResultId}`, "/api/runs/run-1/summary"]) {
      const answer = await read(ALICE, address);
      assert.equal(answer.status, 200, address);
      const body = await answer.text();
      for (const marker of GLOBEX_GOLD) assert.ok(!body.includes(marker), `${address} shows acme's reader "${marker}" of globex's Eval Case`);
    }
    const detail = (await (await read(ALICE, `/api/traces/${acme.caseResultId}`)).json()) as { evalCase: unknown; datasetId: string; evaluationResults: { evaluator_id: string; metric_values: Record<string, number | null> }[] };
    assert.equal(detail.evalCase, null, "acme's trace is shown without globex's case, as if it were not stored");
    assert.equal(detail.datasetId, "");
    // Evaluated as online traffic: no reference answer to match (README, metrics: reference-based metrics need one).
    const referenceMatch = detail.evaluationResults.find((result) => result.evaluator_id === "answer.reference_match");
    assert.ok(referenceMatch === undefined || Object.values(referenceMatch.metric_values).every((value) => value === null), JSON.stringify(referenceMatch));
    // The operator reads every tenant, but the case was not acme's trace's either: the rule follows the trace's tenant.
    assert.equal(((await (await read(OPERATOR, `/api/traces/${acme.caseResultId}`)).json()) as { evalCase: unknown }).evalCase, null);

    // Globex's own trace uses and shows its case: the same ids do find it.
    const own = (await (await read(BOB, `/api/traces/${globex.caseResultId}`)).json()) as { evalCase: { reference_answer: string } | null; datasetId: string };
    assert.equal(own.evalCase?.reference_answer, "GLOBEX-GOLD-ANSWER: 30 days");
    assert.equal(own.datasetId, "globex-private-dataset");
    // A case naming no tenant is shared.
    const sharedDetail = (await (await read(ALICE, `/api/traces/${shared.caseResultId}`)).json()) as { evalCase: { reference_answer: string } | null };
    assert.equal(sharedDetail.evalCase?.reference_answer, "SHARED-REFERENCE: 5 days");
    assert.equal((await listed(ALICE)).find((trace) => trace.caseResultId === shared.caseResultId)?.datasetId, "shared-dataset");
    recordAttack({ attack: "tenant A names tenant B's Eval Case id in its spans", outcome: "evaluated and shown without it (B's gold not readable by A)" });
  });

  test("the judge never receives globex's reference answer for acme's trace", async () => {
    // Globex's trace was sent after acme's; with one lane, its call comes after anything acme's caused.
    for (let attempt = 0; attempt < 600 && !judge.requests.some((request) => request.user.includes(GLOBEX_ANSWER)); attempt += 1) await new Promise((resolve) => setTimeout(resolve, 100));
    assert.ok(judge.requests.some((request) => request.user.includes(GLOBEX_ANSWER) && request.user.includes("GLOBEX-GOLD-ANSWER")), "globex's own trace is judged against its reference answer");
    const ofAcme = judge.requests.filter((request) => request.user.includes(ACME_ANSWER));
    for (const request of ofAcme) for (const marker of GLOBEX_GOLD) assert.ok(!request.user.includes(marker), `the judge of acme's trace was sent "${marker}"`);
  });

  test("the operator's log says why acme's trace was evaluated without the case", () => {
    assert.match(serve!.output(), /trace a1000000000000000000000000000001 of tenant "acme" names Eval Case "case-001" version "1", which is tenant "globex"'s \(its context\.tenant_id\), so it is evaluated without gold data/);
  });
});
