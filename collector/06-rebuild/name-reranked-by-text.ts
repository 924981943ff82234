/**
 * Gives the documents of a rerank that names them by text alone (OpenLLMetry's
 * rerank span: collector/04-normalize/read-openllmetry-rerank.ts) the chunk ids
 * of the retrieved documents with the same text.
 *
 * Same text means the same string, character for character. The rerank call
 * got the very strings the app took from its retrieval, and the retrieval span
 * recorded those strings, so equal strings are the match expected. The
 * normalisation the evidence matcher uses (NFKC, lower case, punctuation and
 * spaces dropped: evaluators/text/normalize-text.ts) is made for asking how
 * much of one text another holds; here the question is which chunk a text is,
 * and lending a chunk id on near-equality could name a document after another
 * one (two versions of a paragraph that differ only in a "not" punctuated
 * differently are still different chunks). A text the app changed before the
 * rerank (a title put in front, LlamaIndex's metadata header) matches nothing.
 *
 * All or nothing: every document the rerank was given must equal the text of
 * exactly one retrieved chunk (the same chunk retrieved twice, e.g. by two
 * retrievers, is one chunk), no two of them the same chunk. Otherwise null: a
 * final ranking with documents of unknown id would stand where the
 * retrieval's ranking, whose ids are known, stood before, and the caller keeps
 * the retrieval's ranking.
 */
import type { ObservedDocument, RerankObservation } from "../04-normalize/stage-observation.js";

export function nameRerankedByText(rerank: RerankObservation, retrieved: readonly ObservedDocument[] | null): RerankObservation | null {
  if (retrieved === null || rerank.input === null || rerank.output === null) return null;
  // For each text the retrieval recorded, the chunk ids it was recorded under (null: a document without an id).
  const idsByText = new Map<string, Set<string | null>>();
  for (const document of retrieved) {
    if (document.text === null) continue;
    const ids = idsByText.get(document.text) ?? new Set<string | null>();
    ids.add(document.chunkId);
    idsByText.set(document.text, ids);
  }
  const chunkIdByText = new Map<string, string>();
  for (const document of rerank.input) {
    const ids = document.text === null ? undefined : idsByText.get(document.text);
    if (ids === undefined || ids.size !== 1) return null;
    const [chunkId] = ids;
    // Two input documents with one text would both be that chunk: the ranking would list it twice.
    if (chunkId === null || chunkId === undefined || chunkIdByText.has(document.text!)) return null;
    chunkIdByText.set(document.text!, chunkId);
  }
  if (new Set(chunkIdByText.values()).size !== chunkIdByText.size) return null;
  const name = (document: ObservedDocument): ObservedDocument | null => {
    const chunkId = document.text === null ? undefined : chunkIdByText.get(document.text);
    return chunkId === undefined ? null : { ...document, chunkId };
  };
  const input = rerank.input.map(name);
  const output = rerank.output.map(name);
  if (input.includes(null) || output.includes(null)) return null;
  return { ...rerank, input: input as ObservedDocument[], output: output as ObservedDocument[] };
}
