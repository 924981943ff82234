/**
 * An Eval Case as digests of its fields, so two holders of a case can say in
 * which fields their copies differ without either showing the other its
 * values: `ragscope eval --endpoint` sends the digests of its file's cases,
 * the collector compares them with the digests of the cases it holds and
 * answers with field names only (ui/api/compare-eval-cases.ts). A blind
 * split's gold data (contracts/blind-gold.ts) never leaves
 * the collector that way, as it would if the stored case itself were sent.
 *
 * Every field but `dataset_id` and `dataset_version` has a digest (those name
 * the dataset a case was loaded from, not the case: eval-case-identity.ts); a
 * field whose value is a mapping (`metadata`, `environment`, …) also has one
 * digest per key, so a difference is named one level deep (`metadata.split`).
 * A digest is the SHA-256 of the value as JSON with every mapping's keys
 * sorted: a YAML and a JSON file that list fields in another order give the
 * same digests.
 */
import { createHash } from "node:crypto";
import { z } from "zod";
import { BLIND_GOLD_FIELDS, isBlindGoldPath } from "./blind-gold.js";

/** The fields that name the dataset a case was loaded from, not the case. */
export const DATASET_FIELDS: ReadonlySet<string> = new Set(["dataset_id", "dataset_version"]);

/**
 * How a blind case's differing gold is named: all its gold fields together —
 * those every surface withholds from a blind case (contracts/blind-gold.ts).
 */
export const BLIND_GOLD_DIFFERENCE = `its gold data (${[...BLIND_GOLD_FIELDS.keys()].join(", ")}, compared together for a blind case)`;

/** SHA-256, lowercase hex. */
const digestText = z.string().regex(/^[0-9a-f]{64}$/, "must be a SHA-256 digest in lowercase hex (64 characters)");

/** One field's digest, and for a mapping the digest of each of its keys. */
export const fieldDigest = z.object({ digest: digestText, fields: z.record(z.string(), digestText).optional() }).strict();
export type FieldDigest = z.infer<typeof fieldDigest>;

/** A case's fields by name, each as its digest. */
export const caseFieldDigests = z.record(z.string(), fieldDigest);
export type CaseFieldDigests = z.infer<typeof caseFieldDigests>;

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** JSON with the keys of every mapping sorted. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    isMapping(inner) ? Object.fromEntries(Object.keys(inner).sort().map((name) => [name, inner[name]])) : inner,
  );
}

const digestOf = (value: unknown): string => createHash("sha256").update(canonicalJson(value)).digest("hex");

/** The digests of a case's fields (of any object of them: the file's case or the stored one). Absent and undefined are the same. */
export function digestCaseFields(evalCase: object): CaseFieldDigests {
  const digests: CaseFieldDigests = {};
  for (const [key, value] of Object.entries(evalCase)) {
    if (DATASET_FIELDS.has(key) || value === undefined) continue;
    if (!isMapping(value)) {
      digests[key] = { digest: digestOf(value) };
      continue;
    }
    const fields: Record<string, string> = {};
    for (const [inner, innerValue] of Object.entries(value)) if (innerValue !== undefined) fields[inner] = digestOf(innerValue);
    digests[key] = { digest: digestOf(value), fields };
  }
  return digests;
}

/**
 * One digest for the whole case (its fields' digests, dataset fields left
 * out): two cases have the same one exactly when caseDifferences finds no
 * field that differs. The store keeps it beside each stored case so that two
 * contents of one id and version stay two rows (store/clickhouse/clickhouse-case-store.ts).
 */
export function caseContentDigest(evalCase: object): string {
  return digestOf(digestCaseFields(evalCase));
}

/**
 * The fields in which the two cases these digests describe differ, as dotted
 * paths one level deep (`risk_level`, `metadata.split`), sorted; empty when
 * they are the same case.
 */
export function digestDifferences(left: CaseFieldDigests, right: CaseFieldDigests): string[] {
  const differences: string[] = [];
  for (const key of [...new Set([...Object.keys(left), ...Object.keys(right)])].sort()) {
    if (DATASET_FIELDS.has(key)) continue;
    const leftField = left[key];
    const rightField = right[key];
    if (leftField?.digest === rightField?.digest) continue;
    if (leftField?.fields !== undefined && rightField?.fields !== undefined) {
      const leftInner = leftField.fields;
      const rightInner = rightField.fields;
      for (const inner of [...new Set([...Object.keys(leftInner), ...Object.keys(rightInner)])].sort()) {
        if (leftInner[inner] !== rightInner[inner]) differences.push(`${key}.${inner}`);
      }
    } else {
      differences.push(key);
    }
  }
  return differences;
}

/**
 * The differences as a blind case's may be told: its gold fields as one entry,
 * whichever of them differ. Named one by one they would let a reader who
 * guesses one gold value at a time (a chunk id, a "Yes") confirm each guess;
 * together, a guess is confirmed only with every gold value right at once.
 */
export function blindCaseDifferences(differences: readonly string[]): string[] {
  const other = differences.filter((path) => !isBlindGoldPath(path));
  return differences.some(isBlindGoldPath) ? [...other, BLIND_GOLD_DIFFERENCE] : other;
}
