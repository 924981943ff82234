/**
 * Run / case linkage and who asked, for spans of conventions that have no
 * field for them. ragscope's own names are read wherever an application can
 * put them without ragscope's SDK: as plain span attributes (`ragscope.case_id`
 * on the root span), inside OpenInference's `metadata` JSON (LangChain's
 * `metadata` call option ends up there), or as OpenLLMetry association
 * properties (`traceloop.association.properties.ragscope.case_id`). Only the
 * `ragscope.`-prefixed names count, so an application's own `run_id` is never
 * mistaken for ragscope's.
 */
import { OpenInference, Ragscope } from "../../contracts/span-attributes.js";
import type { Attributes } from "../00-otlp/span-record.js";
import { readString, readStringList } from "./attribute-readers.js";
import type { RequestObservation } from "./stage-observation.js";

export type Linkage = Omit<RequestObservation, "stage" | "query" | "answer">;

type Source = Attributes | Record<string, unknown> | null;

const linkageKeys = {
  runId: Ragscope.runId,
  caseId: Ragscope.caseId,
  caseVersion: Ragscope.caseVersion,
  datasetId: Ragscope.datasetId,
  datasetVersion: Ragscope.datasetVersion,
  tenantId: Ragscope.tenantId,
  principalId: Ragscope.principalId,
  route: Ragscope.route,
} as const;

/** The first source (in the order given) that carries a key wins. */
export function readLinkage(sources: readonly Source[]): Linkage {
  const text = (key: string): string | null => {
    for (const source of sources) {
      if (source === null) continue;
      const value = readString(source as Attributes, key);
      if (value !== null && value !== "") return value;
    }
    return null;
  };
  let principalGroups: string[] | null = null;
  for (const source of sources) {
    if (source === null || principalGroups !== null) continue;
    principalGroups = readStringList(source as Attributes, Ragscope.principalGroups);
  }
  return {
    runId: text(linkageKeys.runId),
    caseId: text(linkageKeys.caseId),
    caseVersion: text(linkageKeys.caseVersion),
    datasetId: text(linkageKeys.datasetId),
    datasetVersion: text(linkageKeys.datasetVersion),
    tenantId: text(linkageKeys.tenantId),
    principalId: text(linkageKeys.principalId) ?? text(OpenInference.userId),
    principalGroups,
    route: text(linkageKeys.route),
    sessionId: text(OpenInference.sessionId),
    userId: text(OpenInference.userId),
    experimentId: text(Ragscope.experimentId),
    experimentVariant: text(Ragscope.experimentVariant),
  };
}

/** OpenLLMetry association properties without their prefix, as a plain object. */
export function associationProperties(attributes: Attributes, prefix: string): Record<string, unknown> | null {
  const start = `${prefix}.`;
  const found = Object.entries(attributes).filter(([key]) => key.startsWith(start));
  return found.length === 0 ? null : Object.fromEntries(found.map(([key, value]) => [key.slice(start.length), value]));
}
