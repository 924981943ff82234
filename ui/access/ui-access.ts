/**
 * Who may use the UI, as whom, and whose data they read. Tokens come from the
 * environment, never from a command-line flag (argv is visible to every local
 * user), and mirror the receiver's two kinds (SECURITY.md "Tenants"):
 *
 * - RAGSCOPE_UI_TENANT_TOKENS `reviewer:tenant=<sha256>,…` — the SHA-256 of
 *   each token as 64 hex digits (the token itself is never stored); the
 *   reviewer reads and labels only that tenant's data (`reviewer:a|b=…` for
 *   several tenants, `reviewer:*=…` for all of them: an operator).
 * - RAGSCOPE_UI_TOKENS `reviewer=token,…` — plain tokens of a single-tenant
 *   deployment; they read every tenant.
 *
 * The reviewer's identity is the name the token belongs to, never a form
 * field. Without tokens the UI binds to loopback only and everyone there is
 * the reviewer "local", reading everything (the two-command start); on any
 * other address it refuses to start without a token.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { isIP } from "node:net";
import { failure, success, type Result } from "../../core/result.js";
import type { TenantScope } from "../../store/ports/tenant-scope.js";
import { ANONYMOUS_REVIEWER } from "../../evaluators/reviewed-verdict.js";

export interface TenantToken {
  /** SHA-256 of the token. */
  digest: Buffer;
  reviewer: string;
  tenants: TenantScope;
}

export interface UiAccess {
  /** Plain token → reviewer id, reading every tenant. */
  tokens: ReadonlyMap<string, string>;
  /** Hashed tokens, each with its reviewer and tenants. */
  tenantTokens?: readonly TenantToken[];
}

/** Who is reading: the label author and the tenants whose data the store lets through. */
export interface UiReader {
  reviewer: string;
  tenants: TenantScope;
  /** A token proved who the reviewer is; false for the loopback default without tokens, where everyone is "local". */
  authenticated: boolean;
}

export const UI_TOKENS_VARIABLE = "RAGSCOPE_UI_TOKENS";
export const UI_TENANT_TOKENS_VARIABLE = "RAGSCOPE_UI_TENANT_TOKENS";
export const LOCAL_REVIEWER = ANONYMOUS_REVIEWER;
const REVIEWER_PATTERN = /^[A-Za-z0-9_.@-]{1,64}$/;
/** The receiver's tenant pattern (collector/wiring/config/collector-config.ts): no `|`, `=` or `,`, so those can separate. */
const TENANT_PATTERN = /^[\p{L}\p{N}_\-.:@+]{1,128}$/u;
const DIGEST_PATTERN = /^[0-9a-f]{64}$/;
const MINIMUM_TOKEN_LENGTH = 16;

/** Why a token may not be named "local": its labels would never count toward a review (evaluators/reviewed-verdict.ts). */
function anonymousNameRefused(where: string): string {
  return `${where}: the reviewer "${LOCAL_REVIEWER}" is the anonymous reviewer of the UI without tokens, whose labels never count toward a review; give the token another name`;
}

export function parseUiTokens(text: string | undefined): Result<UiAccess, string> {
  const tokens = new Map<string, string>();
  if (text === undefined || text.trim() === "") return success({ tokens });
  for (const [position, entry] of text.split(",").entries()) {
    const separator = entry.indexOf("=");
    const reviewer = entry.slice(0, separator).trim();
    const token = entry.slice(separator + 1).trim();
    if (separator <= 0 || !REVIEWER_PATTERN.test(reviewer)) return failure(`${UI_TOKENS_VARIABLE}: entry ${position + 1} is not "reviewer=token" with a reviewer of letters, digits, _ . @ - (at most 64)`);
    if (reviewer === LOCAL_REVIEWER) return failure(anonymousNameRefused(`${UI_TOKENS_VARIABLE}: entry ${position + 1}`));
    if (token.length < MINIMUM_TOKEN_LENGTH) return failure(`${UI_TOKENS_VARIABLE}: the token of "${reviewer}" is shorter than ${MINIMUM_TOKEN_LENGTH} characters; generate one with \`openssl rand -hex 24\``);
    if (tokens.has(token)) return failure(`${UI_TOKENS_VARIABLE}: two reviewers share one token; give each reviewer their own`);
    tokens.set(token, reviewer);
  }
  return success({ tokens });
}

/** RAGSCOPE_UI_TENANT_TOKENS, `reviewer:tenant[|tenant…]=<sha256>` or `reviewer:*=<sha256>`, comma-separated. */
export function parseUiTenantTokens(text: string | undefined): Result<TenantToken[], string> {
  const entries: TenantToken[] = [];
  if (text === undefined) return success(entries);
  if (text.trim() === "") return success(entries);
  for (const [position, entry] of text.split(",").entries()) {
    const where = `${UI_TENANT_TOKENS_VARIABLE}: entry ${position + 1}`;
    const equals = entry.indexOf("=");
    const colon = entry.indexOf(":");
    if (equals <= 0 || colon <= 0 || colon > equals) return failure(`${where} is not "reviewer:tenant=<sha256 of the token>" (several tenants: "reviewer:a|b=…", all: "reviewer:*=…")`);
    const reviewer = entry.slice(0, colon).trim();
    const tenantText = entry.slice(colon + 1, equals).trim();
    const digest = entry.slice(equals + 1).trim();
    if (!REVIEWER_PATTERN.test(reviewer)) return failure(`${where}: the reviewer "${reviewer}" is not 1 to 64 letters, digits, _ . @ -`);
    if (reviewer === LOCAL_REVIEWER) return failure(anonymousNameRefused(where));
    let tenants: TenantScope;
    if (tenantText === "*") tenants = "all";
    else {
      const list = tenantText.split("|").map((tenant) => tenant.trim());
      const invalid = list.find((tenant) => !TENANT_PATTERN.test(tenant));
      if (invalid !== undefined) return failure(`${where}: the tenant "${invalid}" is not 1 to 128 letters, digits or _ - . : @ +`);
      tenants = list;
    }
    if (!DIGEST_PATTERN.test(digest)) return failure(`${where}: give the SHA-256 of the token as 64 lowercase hex digits (printf %s "$TOKEN" | sha256sum), not the token`);
    if (entries.some((existing) => existing.digest.toString("hex") === digest)) return failure(`${where}: two entries share one token; give each reviewer their own`);
    entries.push({ digest: Buffer.from(digest, "hex"), reviewer, tenants });
  }
  return success(entries);
}

export function isLoopback(host: string): boolean {
  if (host === "localhost") return true;
  const kind = isIP(host);
  if (kind === 4) return host.startsWith("127.");
  if (kind === 6) return host === "::1" || host === "0:0:0:0:0:0:0:1";
  return false;
}

export function hasTokens(access: UiAccess): boolean {
  return access.tokens.size > 0 || (access.tenantTokens?.length ?? 0) > 0;
}

/** An authority as a Host header gives it: a bracketed IPv6 address or a name, then an optional port. */
const AUTHORITY_PATTERN = /^(?<name>\[[0-9A-Fa-f:.]+\]|[^:[\]@/\\]+)(?::\d{1,5})?$/;

/**
 * Whether a request's authority (its Host header, "127.0.0.1:4000") names
 * this machine's loopback interface: localhost, a 127.x.y.z address or [::1],
 * with any port. A browser lured by DNS rebinding sends the attacker's own
 * name (evil.example), which never passes, whatever address it resolved to.
 */
export function isLoopbackAuthority(authority: string | undefined): boolean {
  const name = authority === undefined ? undefined : AUTHORITY_PATTERN.exec(authority)?.groups?.name;
  if (name === undefined) return false;
  return isLoopback(name.startsWith("[") ? name.slice(1, -1) : name.toLowerCase());
}

/** Null when the address may be served with this access; otherwise why not and how to fix it. */
export function refusalFor(host: string, access: UiAccess): string | null {
  if (isLoopback(host) || hasTokens(access)) return null;
  return `the UI would listen on ${host}, which is not a loopback address, without a token: set ${UI_TOKENS_VARIABLE}="reviewer=<token>[,reviewer=<token>]" (tokens of 16 characters or more, e.g. from \`openssl rand -hex 24\`), or ${UI_TENANT_TOKENS_VARIABLE}="reviewer:tenant=<sha256 of the token>[,…]" to limit each reviewer to tenants, or serve the UI on 127.0.0.1`;
}

const digest = (text: string) => createHash("sha256").update(text).digest();

/** The reader a presented token belongs to; null when it belongs to nobody. Every candidate is compared, in constant time. */
export function readerFor(access: UiAccess, presented: string | null): UiReader | null {
  if (!hasTokens(access)) return { reviewer: LOCAL_REVIEWER, tenants: "all", authenticated: false };
  if (presented === null) return null;
  const presentedDigest = digest(presented);
  let found: UiReader | null = null;
  for (const [token, reviewer] of access.tokens) if (timingSafeEqual(digest(token), presentedDigest) && found === null) found = { reviewer, tenants: "all", authenticated: true };
  for (const entry of access.tenantTokens ?? []) if (timingSafeEqual(entry.digest, presentedDigest) && found === null) found = { reviewer: entry.reviewer, tenants: entry.tenants, authenticated: true };
  return found;
}

/** The reviewer a presented token belongs to; null when it belongs to nobody. */
export function reviewerFor(access: UiAccess, presented: string | null): string | null {
  return readerFor(access, presented)?.reviewer ?? null;
}

/** How many tokens, for the start-up line. */
export function describeAccess(access: UiAccess): string {
  const tenantTokens = access.tenantTokens?.length ?? 0;
  if (!hasTokens(access)) return "loopback, no token";
  return [access.tokens.size > 0 ? `${access.tokens.size} reviewer tokens reading all tenants` : "", tenantTokens > 0 ? `${tenantTokens} tenant reviewer tokens` : ""].filter(Boolean).join(", ");
}
