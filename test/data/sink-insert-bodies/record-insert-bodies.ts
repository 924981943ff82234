/**
 * Records what the ClickHouse sink wrote for a batch of Case Results with
 * hostile text, so that a faster implementation can be held to the same
 * bytes (test/integration/sink/recorded-insert-bodies.test.ts). Run from the
 * repository root, at the commit whose output is the reference:
 *
 *     node --import tsx test/data/sink-insert-bodies/record-insert-bodies.ts
 *
 * It writes case-evaluations.json (the input batch) and insert-bodies.json
 * (the deduplication token, the four TabSeparated bodies, the statements and
 * bodies ClickHouseSink.write sent to embedded chDB, and the rows read back).
 */
import { writeFile } from "node:fs/promises";
import { ClickHouseSink } from "../../../store/clickhouse/clickhouse-sink.js";
import { batchBodies } from "../../../store/clickhouse/tab-separated-batch.js";
import { createDefaultRegistry } from "../../../evaluators/default-registry.js";
import { evaluateCaseResult, type CaseEvaluation } from "../../../evaluators/evaluate-case-result.js";
import { templates, variant } from "../../bench/ui.bench.js";
import { seedExample } from "../../support/case-results.js";
import { temporaryStore } from "../../support/temporary-store.js";
import {
  batchFile,
  encodeBatch,
  expectedFile,
  observedConnection,
  readBatch,
  recordedClockMs,
  recordedDatasetOf,
  storedRows,
  type RecordedInsert,
  type RecordedInsertBodies,
} from "../../support/sink-insert-bodies.js";

/** Every character TabSeparated or JSON escapes, NULL's spelling, quotes, separators JSON leaves raw, two-byte and astral text. */
const hostile = 'tab\there, line\nfeed, return\r, back\\slash, \\N, nul\u0000, "double", \'single\', \\\'both\', line sep\u2028para sep\u2029 nel\u0085, bell\u0007, 退款 émoji 🙂, \\t not a tab';

function batch(): CaseEvaluation[] {
  const registry = createDefaultRegistry();
  const evaluations: CaseEvaluation[] = templates().map((template, index) => variant(template, 1_000 + index));
  const { caseResult, evalCase } = seedExample();
  evaluations.push(evaluateCaseResult(registry, caseResult, evalCase, "2026-07-08T09:32:01.000Z"));
  const partial = evaluateCaseResult(
    registry,
    { ...caseResult, case_result_id: "cr_partial", output: null, completed_at: null, rag_observation: { ...caseResult.rag_observation, latency_ms: null, partial_trace: true } },
    null,
    "2026-07-08T09:32:02.500Z",
  );
  partial.replacesEarlier = true;
  evaluations.push(partial);
  const awkward = evaluateCaseResult(
    registry,
    {
      ...caseResult,
      case_result_id: `cr_${hostile}`,
      run_id: `run ${hostile}`,
      case_id: `hostile ${hostile}`,
      case_version: "v\t2",
      trace_id: `trace\n${hostile}`,
      output: hostile,
      rag_observation: { ...caseResult.rag_observation, query: hostile, service_name: `svc\t${hostile}`, tenant_id: "\\N", route: `a\nb${hostile}`, latency_ms: Number.NaN },
    },
    evalCase,
    "2026-07-08T09:32:03.250Z",
  );
  const first = awkward.evaluationResults[0]!;
  first.reason = hostile;
  first.evaluator_id = `evaluator ${hostile}`;
  first.metric_values = { ...first.metric_values, [`metric ${hostile}`]: 0.5, [`absent ${hostile}`]: null, infinite: Number.POSITIVE_INFINITY, negative_infinite: Number.NEGATIVE_INFINITY, not_a_number: Number.NaN, tiny: 1e-9, negative: -0.25, huge: 1.5e300, zero: -0 };
  awkward.rawSpans = { spans: [Buffer.from(JSON.stringify({ name: hostile, attributes: { text: hostile } }))], spanCount: 3, storedSpanCount: 2, truncatedValues: 1 };
  evaluations.push(awkward);
  const replacing = structuredClone(awkward);
  replacing.caseResult.case_result_id = `cr_replacing ${hostile}`;
  for (const result of replacing.evaluationResults) {
    result.case_result_id = replacing.caseResult.case_result_id;
    result.evaluation_result_id = `${result.evaluation_result_id}\t${hostile}`;
  }
  replacing.replacesEarlier = true;
  replacing.rawSpans = { spans: [], spanCount: 0, storedSpanCount: 0, truncatedValues: 0 };
  evaluations.push(replacing);
  return evaluations;
}

await writeFile(batchFile, encodeBatch(batch()));
// The outputs are recorded from the batch as the test reads it back.
const input = await readBatch();
const bodies = batchBodies(input, recordedDatasetOf, recordedClockMs);
const store = await temporaryStore();
try {
  const inserts: RecordedInsert[] = [];
  const sink = new ClickHouseSink(observedConnection(store.connection, inserts), { now: () => recordedClockMs, datasetOf: recordedDatasetOf });
  const written = await sink.write(input);
  if (!written.ok) throw new Error(written.error.message);
  const recorded: RecordedInsertBodies = {
    token: bodies.token,
    bodies: {
      metric_values: bodies.metricValues.toString("utf8"),
      metric_rows: bodies.metricRows,
      evaluation_results: bodies.evaluationResults.toString("utf8"),
      trace_spans: bodies.traceSpans.toString("utf8"),
      case_results: bodies.caseResults.toString("utf8"),
    },
    // The database name is the temporary store's own; the test compares with its own name in its place.
    inserts: inserts.map((insert) => ({ query: insert.query.replaceAll(store.connection.database, "{{database}}"), body: insert.body })),
    storedRows: await storedRows(store.connection),
  };
  await writeFile(expectedFile, `${JSON.stringify(recorded, null, 2)}\n`);
  console.log(`recorded ${input.length} Case Results: ${recorded.inserts.length} inserts, token ${recorded.token}`);
} finally {
  await store.cleanup();
}
