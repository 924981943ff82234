/**
 * The web UI's settings `serve` reads from the environment beside the
 * settings schema: who may read (RAGSCOPE_UI_TOKENS, RAGSCOPE_UI_TENANT_TOKENS)
 * and whether a TLS proxy serves it (RAGSCOPE_UI_BEHIND_TLS). One reading for
 * `serve`, which refuses to start on a bad value, and `ragscope config`, which
 * must refuse the same values.
 */
import { failure, success, type Result } from "../../../core/result.js";
import { parseBehindTls, UI_BEHIND_TLS_VARIABLE } from "../../../ui/access/session-cookie.js";
import { parseUiTenantTokens, parseUiTokens, UI_TENANT_TOKENS_VARIABLE, UI_TOKENS_VARIABLE, type UiAccess } from "../../../ui/access/ui-access.js";

export interface UiSettings {
  access: UiAccess;
  /** A proxy serves the UI over HTTPS: the session cookie is Secure. */
  behindTls: boolean;
}

/** The UI's settings, or the first problem (it names its variable and what to write). */
export function readUiSettings(environment: Readonly<Record<string, string | undefined>>): Result<UiSettings, string> {
  const tokens = parseUiTokens(environment[UI_TOKENS_VARIABLE]);
  if (!tokens.ok) return failure(tokens.error);
  const tenantTokens = parseUiTenantTokens(environment[UI_TENANT_TOKENS_VARIABLE]);
  if (!tenantTokens.ok) return failure(tenantTokens.error);
  const behindTls = parseBehindTls(environment[UI_BEHIND_TLS_VARIABLE]);
  if (!behindTls.ok) return failure(behindTls.error);
  return success({ access: { tokens: tokens.value.tokens, tenantTokens: tenantTokens.value }, behindTls: behindTls.value });
}
