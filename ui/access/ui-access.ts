/**
 * Who may use the UI, and as whom. Tokens come from RAGSCOPE_UI_TOKENS
 * (`reviewer=token,reviewer=token`), never from a command-line flag (argv is
 * visible to every local user). The reviewer's identity is the name the token
 * belongs to, never a form field. Without tokens the UI binds to loopback only
 * and everyone there is the reviewer "local"; on any other address it refuses
 * to start without a token.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { isIP } from "node:net";
import { failure, success, type Result } from "../../core/result.js";

export interface UiAccess {
  /** Token → reviewer id. Empty: no token asked (loopback only). */
  tokens: ReadonlyMap<string, string>;
}

export const UI_TOKENS_VARIABLE = "RAGSCOPE_UI_TOKENS";
export const LOCAL_REVIEWER = "local";
const REVIEWER_PATTERN = /^[A-Za-z0-9_.@-]{1,64}$/;
const MINIMUM_TOKEN_LENGTH = 16;

export function parseUiTokens(text: string | undefined): Result<UiAccess, string> {
  const tokens = new Map<string, string>();
  if (text === undefined || text.trim() === "") return success({ tokens });
  for (const [position, entry] of text.split(",").entries()) {
    const separator = entry.indexOf("=");
    const reviewer = entry.slice(0, separator).trim();
    const token = entry.slice(separator + 1).trim();
    if (separator <= 0 || !REVIEWER_PATTERN.test(reviewer)) return failure(`${UI_TOKENS_VARIABLE}: entry ${position + 1} is not "reviewer=token" with a reviewer of letters, digits, _ . @ - (at most 64)`);
    if (token.length < MINIMUM_TOKEN_LENGTH) return failure(`${UI_TOKENS_VARIABLE}: the token of "${reviewer}" is shorter than ${MINIMUM_TOKEN_LENGTH} characters; generate one with \`openssl rand -hex 24\``);
    if (tokens.has(token)) return failure(`${UI_TOKENS_VARIABLE}: two reviewers share one token; give each reviewer their own`);
    tokens.set(token, reviewer);
  }
  return success({ tokens });
}

export function isLoopback(host: string): boolean {
  if (host === "localhost") return true;
  const kind = isIP(host);
  if (kind === 4) return host.startsWith("127.");
  if (kind === 6) return host === "::1" || host === "0:0:0:0:0:0:0:1";
  return false;
}

/** Null when the address may be served with this access; otherwise why not and how to fix it. */
export function refusalFor(host: string, access: UiAccess): string | null {
  if (isLoopback(host) || access.tokens.size > 0) return null;
  return `the UI would listen on ${host}, which is not a loopback address, without a token: set ${UI_TOKENS_VARIABLE}="reviewer=<token>[,reviewer=<token>]" (tokens of 16 characters or more, e.g. from \`openssl rand -hex 24\`), or serve the UI on 127.0.0.1`;
}

const digest = (text: string) => createHash("sha256").update(text).digest();

/** The reviewer a presented token belongs to; null when it belongs to nobody. Compared in constant time. */
export function reviewerFor(access: UiAccess, presented: string | null): string | null {
  if (access.tokens.size === 0) return LOCAL_REVIEWER;
  if (presented === null) return null;
  const presentedDigest = digest(presented);
  let found: string | null = null;
  for (const [token, reviewer] of access.tokens) if (timingSafeEqual(digest(token), presentedDigest)) found = reviewer;
  return found;
}
