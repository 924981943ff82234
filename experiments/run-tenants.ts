/**
 * Whose results a run id holds. A tenant chooses the run ids its spans carry
 * (`ragscope.run_id`), so tenant acme, sending passing requests that name
 * globex's run id `release-42`, put its results beside globex's under that id;
 * the operator's `gate` and `report` without --tenant read every tenant's, and
 * acme's passes diluted globex's failures until the gate passed: a verdict
 * about globex's release that overstated its quality.
 *
 * The tenant value of a result is what the store keeps (`tenant_id`): '' for a
 * result that names none — `ragscope eval` without --tenant, a store without
 * tenant tokens, everything stored before tenants. '' is a tenant value like
 * any other: an operator's eval run whose id a tenant's spans also name is
 * mixed, since nothing tells the tenant's requests apart from the run's.
 */
import type { RunTenantCount } from "../store/ports/run-reader.js";

/** More than one tenant value among the run's results. */
export function isMixed(counts: readonly RunTenantCount[]): boolean {
  return counts.length > 1;
}

/** `tenant "acme" 3, tenant "globex" 2, no tenant ('') 1` — most results first, then by tenant. */
export function describeTenantCounts(counts: readonly RunTenantCount[]): string {
  return [...counts]
    .sort((first, second) => second.results - first.results || (first.tenant < second.tenant ? -1 : first.tenant > second.tenant ? 1 : 0))
    .map((count) => `${count.tenant === "" ? "no tenant ('')" : `tenant "${count.tenant}"`} ${count.results} result${count.results === 1 ? "" : "s"}`)
    .join(", ");
}

/**
 * Why the operator's gate (no --tenant, no --all-tenants) does not decide on this run, in one line; null when the
 * run's results carry one tenant value (or none are stored: said elsewhere). `role`: "run" or "baseline run".
 */
export function mixedTenantsProblem(runId: string, role: "run" | "baseline run", counts: readonly RunTenantCount[]): string | null {
  if (!isMixed(counts)) return null;
  const flag = role === "run" ? "--run" : "--baseline";
  return (
    `${role} "${runId}" holds the results of ${counts.length} tenants (${describeTenantCounts(counts)}): any tenant's spans may name any run id, so their results would decide together — ` +
    `gate one tenant's run with --tenant NAME (one of those), or pass --all-tenants to gate on every tenant's results of ${flag} ${runId} together`
  );
}

/** The tenant values among one repeat's results: repeat 1 is the run id itself, repeat k > 1 the run `<id>.repeat-k`. */
export interface RepeatTenantCounts {
  repeat: number;
  runId: string;
  counts: readonly RunTenantCount[];
}

/**
 * More than one tenant value among the results of a run's repeats together: a repeat another tenant's results alone
 * carry decides the run as much as one they share (eval --repeat N: the worst repeat decides).
 */
export function isMixedOverRepeats(repeats: readonly RepeatTenantCounts[]): boolean {
  return tenantsOverRepeats(repeats) > 1;
}

/** How many tenant values the results of all the repeats carry together. */
function tenantsOverRepeats(repeats: readonly RepeatTenantCounts[]): number {
  return new Set(repeats.flatMap((item) => item.counts.map((count) => count.tenant))).size;
}

/** `repeat 1: tenant "globex" 2 results; repeat 2 (run r.repeat-2): tenant "acme" 3 results, tenant "globex" 2 results`. */
export function describeRepeatTenantCounts(repeats: readonly RepeatTenantCounts[]): string {
  return repeats.map((item) => `repeat ${item.repeat}${item.repeat === 1 ? "" : ` (run ${item.runId})`}: ${describeTenantCounts(item.counts)}`).join("; ");
}

/**
 * Why the operator's gate (no --tenant, no --all-tenants) does not decide on a run of `eval --repeat N`, in one line;
 * null when the results of all its repeats carry one tenant value. `repeats`: repeat 1 (the run id) first, then
 * every further repeat the store holds results of. Any tenant's spans may name `<id>.repeat-2` as they may name `<id>`.
 */
export function mixedRepeatsProblem(runId: string, repeats: readonly RepeatTenantCounts[]): string | null {
  const tenants = tenantsOverRepeats(repeats);
  if (tenants <= 1) return null;
  return (
    `run "${runId}" and its repeats hold the results of ${tenants} tenants (${describeRepeatTenantCounts(repeats)}): any tenant's spans may name any run id, a repeat's (${runId}.repeat-2) too, and every repeat decides the gate — ` +
    `gate one tenant's run with --tenant NAME (one of those), or pass --all-tenants to gate on every tenant's results of --run ${runId} and its repeats together`
  );
}

/**
 * Why `ragscope eval --baseline` does not run against this baseline, in one line; null when its results carry one
 * tenant value. Refused as the gate refuses it: the baseline decides the regression rules and the comparison, so
 * another tenant's requests naming its id would move this run's verdict. `remote`: the run reads through a running
 * collector's read API (--endpoint), where the read token, not --tenant, says whose results are read.
 */
export function mixedBaselineProblem(runId: string, counts: readonly RunTenantCount[], remote: boolean): string | null {
  if (!isMixed(counts)) return null;
  const oneTenant = remote ? "read with a token of one tenant (RAGSCOPE_READ_API_TOKEN: one of the server's RAGSCOPE_UI_TENANT_TOKENS)" : "run as one tenant with --tenant NAME (one of those)";
  return (
    `--baseline ${runId}: baseline run "${runId}" holds the results of ${counts.length} tenants (${describeTenantCounts(counts)}): any tenant's spans may name any run id, so this run would be compared and gated against their results together — nothing was run; ` +
    `compare with a baseline one tenant's results carry, ${oneTenant}, or pass --all-tenants to compare with every tenant's results of --baseline ${runId} together`
  );
}

/** What the report says of a run it shows whose results carry several tenant values; null when they carry one. */
export function mixedTenantsNotice(runId: string, counts: readonly RunTenantCount[]): string | null {
  if (!isMixed(counts)) return null;
  return `run "${runId}" holds the results of ${counts.length} tenants (${describeTenantCounts(counts)}): its numbers count them together, since any tenant's spans may name any run id — report one tenant's with --tenant NAME`;
}
