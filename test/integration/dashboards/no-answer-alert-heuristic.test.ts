/**
 * Why the Grafana no_answer_accuracy alert is labelled "(heuristic)"
 * (evaluators/gates/alert-metric-reading.ts): its query counts every stored
 * abstention, answer.abstention's heuristic ones among them, where the release
 * gate counts exact ones only. Ten unanswerable questions of one service: five
 * answers refuse in whole (read exactly), five put a refusal phrase beside a
 * claim of their own (a heuristic "abstained"). The provisioned rule's query,
 * its macros expanded over its window, runs on the ClickHouse engine against
 * rows the real sink wrote: 1.0, no alert; the gate's value of the same cases
 * is 0.5, a failure. The rule says so in its labels and annotations.
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { parse } from "yaml";
import { caseResult as caseResultSchema } from "../../../contracts/case-result.js";
import { ALERT_RULES_FILE, projectRoot } from "../../../dashboards/source/generated-files.js";
import type { EvaluatedCase } from "../../../evaluators/aggregate/evaluated-case.js";
import { noAnswerAccuracy } from "../../../evaluators/aggregate/no-answer-accuracy.js";
import { createDefaultRegistry } from "../../../evaluators/default-registry.js";
import { evaluateCaseResult, type CaseEvaluation } from "../../../evaluators/evaluate-case-result.js";
import { executableSql, runQuery } from "../../../report/panel-data.js";
import { ClickHouseSink } from "../../../store/clickhouse/clickhouse-sink.js";
import { buildCase } from "../../support/case-results.js";
import { plannedCaseResult } from "../../support/stored-requests.js";
import { temporaryStore, type TemporaryStore } from "../../support/temporary-store.js";

interface ProvisionedRule {
  title: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  data: { refId: string; relativeTimeRange?: { from: number; to: number }; model: { rawSql?: string; expression?: string } }[];
}

const T0 = Date.UTC(2026, 6, 8, 9, 30);
const REFUSES_IN_WHOLE = "资料中没有相关信息，无法回答。";
const REFUSES_BESIDE_A_CLAIM = "资料中没有相关信息，但年假是15天。";

function unanswerable(index: number): CaseEvaluation & EvaluatedCase {
  const evalCase = buildCase({ case_id: `case_${index}`, case_version: "v1", input: "年假有几天？", answerable: false });
  const planned = plannedCaseResult({ caseResultId: `cr_no_answer_${index}`, traceId: String(index + 1).padStart(32, "0"), caseId: evalCase.case_id, service: "support-bot", startedAtMs: T0 + index * 1_000 });
  const caseResult = caseResultSchema.parse({ ...planned, output: index < 5 ? REFUSES_IN_WHOLE : REFUSES_BESIDE_A_CLAIM });
  return { ...evaluateCaseResult(createDefaultRegistry(), caseResult, evalCase, new Date(T0 + 60_000).toISOString()), evalCase };
}

describe("the Grafana no_answer_accuracy alert reads heuristic abstentions", () => {
  let store: TemporaryStore;
  let evaluations: (CaseEvaluation & EvaluatedCase)[];
  let rule: ProvisionedRule;
  before(async () => {
    store = await temporaryStore();
    evaluations = Array.from({ length: 10 }, (_, index) => unanswerable(index));
    const written = await new ClickHouseSink(store.connection, { now: () => T0 + 120_000 }).write(evaluations);
    assert.ok(written.ok, written.ok ? "" : written.error.message);
    const document = parse(await readFile(path.join(projectRoot, ALERT_RULES_FILE), "utf8")) as { groups: { rules: ProvisionedRule[] }[] };
    rule = document.groups.flatMap((group) => group.rules).find((candidate) => candidate.labels.metric === "no_answer_accuracy")!;
  });
  after(async () => {
    await store?.cleanup();
  });

  test("the alert's query reads 1.0 (quiet) where the release gate reads 0.5 (a failure); the rule is labelled heuristic", async () => {
    const query = rule.data.find((entry) => entry.refId === "A")!;
    const toMs = T0 + 30 * 60_000;
    const context = { fromMs: toMs - query.relativeTimeRange!.from * 1000, toMs, intervalMs: 60_000 };
    const frame = await runQuery(store.store.dashboards, "A", executableSql(query.model.rawSql!, store.connection.database, {}, context));
    assert.equal(frame.rows, 1);
    assert.equal(frame.fields.find((field) => field.name === "service_name")!.values[0], "support-bot");
    assert.equal(Number(frame.fields.find((field) => field.name === "Value")!.values[0]), 1, "every abstention counted, the heuristic ones too");
    assert.equal(rule.data.find((entry) => entry.refId === "C")!.model.expression, "$B < 0.9", "1.0 does not fire");

    const gate = noAnswerAccuracy(evaluations);
    assert.deepEqual(gate.value, { applicable: true, value: 0.5 });
    assert.equal(gate.heuristicAbstentionsNotCounted, 5);

    assert.equal(rule.title, "no_answer_accuracy (heuristic) >= 0.90 (boundary gate)");
    assert.equal(rule.labels.semantics, "heuristic");
    assert.match(rule.annotations.description!, /not a pass — the alert counts every stored abstention as the boards do, answer\.abstention's heuristic ones .* among them; the release gate counts only abstentions read exactly/);
  });
});
