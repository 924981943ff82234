/**
 * A Python LangChain retriever, traced by Traceloop's opentelemetry-instrumentation-langchain, that returns an item
 * which is no LangChain Document. The instrumentation's `on_retriever_end` (0.62, callback_handler.py) writes each
 * Document as `{"page_content", "metadata"}` and any other item with Python's `str()`; ragscope reads a retrieval's
 * documents all or none, so the retrieval's documents are not available (null) — and before, nothing on the Case
 * Result said why: it looked like a retrieval that recorded nothing.
 *
 * The trace is the recorded golden (test/golden/traces/langchain-python-traceloop.otlp.json) with its retriever
 * span's output edited: the second document replaced by what the instrumentation writes for a `(Document, score)`
 * pair, the `str()` below, produced by langchain-core 1.8.3 (requirements-traceloop-langchain.txt's environment):
 *   python -c "from langchain_core.documents import Document; import json; print(json.dumps(str((Document(page_content='年假结转：未使用的年假最多可结转 5 天到下一年度，结转部分须在次年 3 月 31 日前休完。', metadata={'document_id': 'leave_policy', 'document_version': 'v3', 'section_id': 's2', 'effective_from': '2026-01-01'}), 0.83)), ensure_ascii=False))"
 * Replayed through the collector's consumer path (replay-golden.ts).
 *
 * Expected: the retrieval's documents stay null (nothing made up from the other two, nor from the later step that
 * packs documents), and the Case Result's `malformed_attributes` names the retriever span, its
 * `traceloop.entity.output` and the item (its index and its text) as `unreadable_value`. The unedited golden carries no
 * such note (golden-traces.test.ts compares it with its stored Case Result).
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { test } from "node:test";
import { tracePath } from "./record-goldens.js";
import { replayTrace } from "./replay-golden.js";
import { goldenCase } from "./scenarios/policy-corpus.js";

const RETRIEVER_SPAN = "vector_db_retrieve VectorStoreRetriever";
/** `str((document, 0.83))` as Python prints it (the command in the module comment). */
const PAIR_AS_TEXT =
  "(Document(metadata={'document_id': 'leave_policy', 'document_version': 'v3', 'section_id': 's2', 'effective_from': '2026-01-01'}, page_content='年假结转：未使用的年假最多可结转 5 天到下一年度，结转部分须在次年 3 月 31 日前休完。'), 0.83)";

interface OtlpAttribute {
  key: string;
  value: { stringValue?: string };
}
interface OtlpJson {
  resourceSpans: { scopeSpans: { spans: { name: string; spanId: string; attributes: OtlpAttribute[] }[] }[] }[];
}

test("a Traceloop retriever's item that is no Document: the documents stay null and the Case Result says which item of which span", async () => {
  const trace = JSON.parse(await readFile(tracePath("langchain-python-traceloop"), "utf8")) as OtlpJson;
  const spans = trace.resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans));
  const retriever = spans.find((span) => span.name === RETRIEVER_SPAN);
  assert.ok(retriever !== undefined, "the golden has the retriever span");
  // The instrumentation writes the same JSON under both keys.
  for (const key of ["traceloop.entity.output", "gen_ai.task.output"]) {
    const attribute = retriever.attributes.find((item) => item.key === key)!;
    const output = JSON.parse(attribute.value.stringValue!) as { documents: unknown[]; count: number };
    assert.equal(output.documents.length, 3, "the recorded retrieval returned three documents");
    output.documents[1] = PAIR_AS_TEXT;
    attribute.value.stringValue = JSON.stringify(output);
  }

  const [evaluation, ...others] = await replayTrace(JSON.stringify(trace), [goldenCase]);
  assert.equal(others.length, 0, "one trace, one Case Result");
  const observation = evaluation!.caseResult.rag_observation;
  assert.equal(observation.retrieved_chunks, null, "the retrieval's documents: not available, none made up");
  assert.ok(
    observation.stage_timings.some((timing) => timing.stage === "retrieve" && timing.span_name === RETRIEVER_SPAN),
    "the retrieval is still seen",
  );
  const notes = observation.malformed_attributes.filter((note) => note.kind === "unreadable_value");
  assert.deepEqual(
    notes.map((note) => [note.span_id, note.span_name, note.attribute]),
    [[retriever.spanId, RETRIEVER_SPAN, "traceloop.entity.output"]],
  );
  const reason = notes[0]!.error;
  assert.ok(reason.startsWith(`documents[1] is the text "(Document(metadata={'document_id': 'leave_policy'`), reason);
  assert.match(reason, /not a LangChain Document/);
  assert.match(reason, /its 3 documents are not available/);
  assert.ok([...reason].length < 600, "the item is quoted in part, not whole");
});
