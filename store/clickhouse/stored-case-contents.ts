/**
 * The rows `eval_cases` holds for a case id and version, as contents. Since
 * migration 0030 the table's sorting key ends in the content's digest, so two
 * pushes of one id and version that raced (both checked before either
 * inserted: clickhouse-case-store.ts) leave two rows that no merge collapses.
 * Such a case has no content anybody chose: readers leave it out — as an
 * unknown case — instead of taking whichever row comes first.
 *
 * Contents are told apart by the digest of the parsed case (caseContentDigest),
 * not by the stored column: a row stored before 0030 has an empty one.
 */
import { caseIdentity } from "../../contracts/eval-case-identity.js";
import { caseContentDigest } from "../../contracts/eval-case-digest.js";
import type { EvalCase } from "../../contracts/eval-case.js";

/** A stored content of a case, and the `content_digest` its row holds ('' before migration 0030). */
export interface StoredCaseContent {
  evalCase: EvalCase;
  storedDigest: string;
}

/** The distinct contents of each case id and version (caseIdentity), in the order the rows came. */
export function contentsByCase(rows: readonly StoredCaseContent[]): Map<string, StoredCaseContent[]> {
  const contents = new Map<string, StoredCaseContent[]>();
  const seen = new Set<string>();
  for (const row of rows) {
    const identity = caseIdentity(row.evalCase);
    const content = `${identity}\u0000${caseContentDigest(row.evalCase)}`;
    if (seen.has(content)) continue;
    seen.add(content);
    contents.set(identity, [...(contents.get(identity) ?? []), row]);
  }
  return contents;
}

/** The cases stored with one content, by caseIdentity; a case stored with two contents is left out. */
export function casesWithOneContent(cases: readonly EvalCase[]): Map<string, EvalCase> {
  const single = new Map<string, EvalCase>();
  for (const [identity, contents] of contentsByCase(cases.map((evalCase) => ({ evalCase, storedDigest: "" })))) {
    if (contents.length === 1) single.set(identity, contents[0]!.evalCase);
  }
  return single;
}
