/**
 * Why a Traceloop retriever's documents were not read (unread-retriever-documents.ts): the first item that is no
 * document, described by what it is and quoted in part; an output without a documents list; nothing to explain when
 * every item is a document, the list is empty or the output is absent.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { unreadRetrieverDocuments } from "../../../collector/04-normalize/unread-retriever-documents.js";

const ATTRIBUTE = "traceloop.entity.output";
const document = { page_content: "Five days carry over.", metadata: { document_id: "leave" } };

test("nothing to explain: every item a document, an empty list, no output", () => {
  assert.equal(unreadRetrieverDocuments(ATTRIBUTE, { documents: [document, document], count: 2 }), null);
  assert.equal(unreadRetrieverDocuments(ATTRIBUTE, { documents: [], count: 0 }), null);
  assert.equal(unreadRetrieverDocuments(ATTRIBUTE, null), null);
});

test("the first item that is no document, by index and kind", () => {
  const reason = (item: unknown) => unreadRetrieverDocuments(ATTRIBUTE, { documents: [document, item, 7], count: 3 })?.error ?? "";
  assert.match(reason("doc-2"), /^documents\[1\] is the text "doc-2", not a LangChain Document .* its 3 documents are not available; return Documents/);
  assert.match(reason({ text: "x", score: 0.4 }), /^documents\[1\] is an object with the keys "text", "score", not a LangChain Document/);
  assert.match(reason(Object.fromEntries(Array.from({ length: 10 }, (_, index) => [`k${index}`, index]))), /"k7" and 2 more, not/);
  assert.match(reason(null), /^documents\[1\] is null, not/);
  assert.match(reason({}), /^documents\[1\] is an empty object, not/);
  assert.match(reason([1, 2, 3]), /^documents\[1\] is a list of 3 items, not/);
  assert.equal(unreadRetrieverDocuments(ATTRIBUTE, { documents: [document, document, 0.5] })?.error.startsWith("documents[2] is the number 0.5,"), true);
});

test("a long item is quoted in part, whole characters kept", () => {
  const long = "年".repeat(5000);
  const error = unreadRetrieverDocuments(ATTRIBUTE, { documents: [long] })!.error;
  assert.ok(error.startsWith(`documents[0] is the text "${"年".repeat(120)}…"`), error.slice(0, 200));
  assert.ok(error.length < 700);
});

test("an output without a documents list says so", () => {
  assert.deepEqual(unreadRetrieverDocuments(ATTRIBUTE, { count: 2 }), { attribute: ATTRIBUTE, error: 'the retriever\'s output holds no "documents" list (an object with the keys "count"), so the retrieval\'s documents are not available' });
  assert.match(unreadRetrieverDocuments(ATTRIBUTE, "found nothing")!.error, /no "documents" list \(the text "found nothing"\)/);
});
