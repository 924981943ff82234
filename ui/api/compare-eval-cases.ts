/**
 * `POST /api/cases/compare`: whether the collector holds each of a dataset
 * file's Eval Cases under its id and version, and if so in which fields the
 * stored case differs, so `ragscope eval --endpoint` can refuse up front a run
 * that would be judged against other gold data than the file the user gave,
 * or against none (experiments/target/remote-target.ts).
 *
 * The client sends each case's field digests (contracts/eval-case-digest.ts),
 * never the case; the answer names fields and the dataset the stored case was
 * loaded from, never a value or a digest of the stored case. A blind split's
 * gold data (gold chunk ids, reference answer, key points) is what a reader of
 * every tenant could otherwise read of any case it knew the id of, with no run
 * that used it; and a digest of a short value (a chunk id, "Yes") is undone by
 * hashing guesses offline, so the stored digests are not sent either. For a
 * blind case the gold fields are answered as one (blindCaseDifferences): a
 * reader can then confirm a guess of its gold only by guessing all of it at
 * once, not one short value at a time.
 *
 * A reader is compared with the cases its traces would be evaluated against
 * (contracts/eval-case-tenant.ts): every case for a reader of all tenants; for
 * a tenant-limited reader, the cases that name no tenant or one of its
 * tenants — another tenant's case answers as not stored.
 */
import { z } from "zod";
import { failure, success, type Result } from "../../core/result.js";
import { blindCaseDifferences, caseFieldDigests, digestCaseFields, digestDifferences } from "../../contracts/eval-case-digest.js";
import { isBlind } from "../../collector/wiring/dataset/dataset-mix.js";
import { evalCaseTenant } from "../../contracts/eval-case-tenant.js";
import type { CaseStore } from "../../store/ports/case-store.js";
import type { TenantScope } from "../../store/ports/tenant-scope.js";

/** Cases per request: `eval --endpoint` sends its file's cases in batches of this many at most. */
export const MAXIMUM_COMPARED_CASES = 200;
/** Concurrent store reads while answering one request. */
const READS_IN_FLIGHT = 8;

const comparisonRequest = z
  .object({
    cases: z
      .array(z.object({ case_id: z.string().min(1), case_version: z.string().min(1), fields: caseFieldDigests }).strict())
      .max(MAXIMUM_COMPARED_CASES, `at most ${MAXIMUM_COMPARED_CASES} cases a request: send the rest in another`),
  })
  .strict();

/** One case's answer: not stored (as this reader may see it), or stored with the fields that differ (empty: the same case). */
export type CaseComparison =
  | { case_id: string; case_version: string; stored: false }
  | { case_id: string; case_version: string; stored: true; dataset_id: string; dataset_version: string; differing_fields: string[] };

export async function compareEvalCases(cases: CaseStore, scope: TenantScope, text: string): Promise<Result<{ cases: CaseComparison[] }, string>> {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    return failure(`the body is not JSON (${(error as Error).message}); send {"cases": [{"case_id", "case_version", "fields": <digests of contracts/eval-case-digest.ts>}]}`);
  }
  const parsed = comparisonRequest.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return failure(`${issue.path.join(".") || "the body"}: ${issue.message}; send {"cases": [{"case_id", "case_version", "fields": <digests of contracts/eval-case-digest.ts>}]}`);
  }
  const requested = parsed.data.cases;
  const answers: CaseComparison[] = new Array(requested.length);
  let next = 0;
  const reader = async () => {
    while (next < requested.length) {
      const index = next++;
      const { case_id, case_version, fields } = requested[index]!;
      const stored = await cases.get(case_id, case_version);
      const owner = stored === null ? null : evalCaseTenant(stored);
      const visible = stored !== null && (scope === "all" || owner === null || scope.includes(owner));
      if (!visible) {
        answers[index] = { case_id, case_version, stored: false };
        continue;
      }
      const differences = digestDifferences(fields, digestCaseFields(stored));
      answers[index] = { case_id, case_version, stored: true, dataset_id: stored.dataset_id, dataset_version: stored.dataset_version, differing_fields: isBlind(stored) ? blindCaseDifferences(differences) : differences };
    }
  };
  await Promise.all(Array.from({ length: Math.min(READS_IN_FLIGHT, requested.length) }, reader));
  return success({ cases: answers });
}
