/**
 * A run's results that an earlier release stored under ids without their tenant.
 *
 * A run's Case Result id includes the tenant its results are stored under (contracts/ids.ts); releases before that
 * rule left an unauthenticated claimed tenant out. Such a result is stored with its tenant and an id of the earlier
 * form, which this release never gives a result with a tenant, so sending the run again would store each case beside
 * its earlier result rather than replacing it, and the run would count every case twice. `ragscope demo` reuses its
 * run id on purpose (running it again replaces the run), so it asks this before running and refuses instead.
 */
import { caseResultIdFor } from "../../../contracts/ids.js";
import type { EvalCase } from "../../../contracts/eval-case.js";
import type { TraceReader } from "../../../store/ports/trace-reader.js";

/** The case keys (`case_id@case_version`) of the run's cases stored with a tenant under an id of the earlier form. */
export async function resultsKeyedWithoutTenant(traces: Pick<TraceReader, "findRequestsOfCases">, runId: string, cases: readonly EvalCase[]): Promise<string[]> {
  const earlierIds = new Map(cases.map((item) => [caseResultIdFor({ traceId: "", runId, caseId: item.case_id, caseVersion: item.case_version }), `${item.case_id}@${item.case_version}`]));
  const stored = await traces.findRequestsOfCases([...earlierIds.keys()]);
  return [...stored].filter(([, locations]) => locations.some((location) => location.tenantId !== "")).map(([id]) => earlierIds.get(id)!);
}
