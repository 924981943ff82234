/**
 * The tenant of a request comes from its credential, never from its payload:
 * every resource of the request gets `ragscope.tenant.authenticated` set to
 * the tenant the receiver authenticated, and any value a client put under that
 * key is removed first (with no authenticated tenant, only the removal). The
 * client's own `ragscope.tenant_id` stays, as a claim the rebuild compares.
 */
import { Ragscope } from "../../contracts/span-attributes.js";
import type { TracesDocument } from "./traces-document.js";

export function stampTenant(document: TracesDocument, tenant: string | null): void {
  for (const resourceSpans of document.resourceSpans) {
    const attributes = resourceSpans.resource.attributes.filter((attribute) => attribute.key !== Ragscope.authenticatedTenant);
    if (tenant !== null) attributes.push({ key: Ragscope.authenticatedTenant, value: { stringValue: tenant } });
    resourceSpans.resource.attributes = attributes;
  }
}
