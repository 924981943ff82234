/**
 * The sign-in page. A token in the address (`/traces?token=…`, the link an
 * operator hands a reviewer) only fills in this page: nothing is signed in
 * until the reviewer presses the button, which posts the form to /login from
 * this UI's own origin (access/sign-in-origin.ts). A link someone else sent
 * therefore cannot sign anyone in silently (login CSRF), and the page names the
 * reviewer and tenants the token belongs to, so a reviewer who did not expect
 * them can stop. Without a token in the address it asks for one.
 *
 * /static/sign-in.js takes the token out of the address bar (history), as the
 * redirect of the old exchange did; the page works without it.
 */
import { html } from "./markup.js";
import type { TenantScope } from "../../store/ports/tenant-scope.js";
import { page, type Markup } from "./layout.js";

export interface SignInPage {
  /** The token's reviewer and tenants when the address held a valid token: the page asks to confirm it. */
  offered: { token: string; reviewer: string; tenants: TenantScope } | null;
  /** Where to go once signed in: a path of this server (access/local-path.ts). */
  next: string;
  /** Who this browser is signed in as now, if anyone. */
  signedInAs: string | null;
  error: string | null;
  /** Said once, e.g. after signing out. */
  notice?: string | null;
  /** A form posted after the session ended: what became of it. */
  unsaved?: UnsavedForm | null;
}

/**
 * What the sign-in page says of a form posted without a session: it was not
 * saved, and what of it waits for the reviewer after signing in. `comment`:
 * text that could not be kept, shown to copy, so it is not lost either.
 */
export interface UnsavedForm {
  message: string;
  comment: string | null;
}

const describeTenants = (tenants: TenantScope) => (tenants === "all" ? "every tenant" : tenants.length === 1 ? `tenant ${tenants[0]}` : `tenants ${tenants.join(", ")}`);

export function signInPage(shown: SignInPage): Markup {
  const notice = (shown.notice ?? null) === null ? "" : html`<p class="notice" id="message" role="status">${shown.notice}</p>`;
  const unsaved = shown.unsaved ?? null;
  const unsavedMarkup =
    unsaved === null
      ? ""
      : html`<p class="error" id="unsaved-form" role="alert">${unsaved.message}</p>${unsaved.comment === null ? "" : html`<p><label>Your comment, not kept<br><textarea id="unsaved-comment" rows="6" cols="80" readonly>${unsaved.comment}</textarea></label></p>`}`;
  const error = html`${notice}${unsavedMarkup}${shown.error === null ? "" : html`<p class="error" id="error" role="alert">${shown.error}</p>`}`;
  const current = shown.signedInAs === null ? "" : html`<p id="signed-in-as">This browser is signed in as <strong>${shown.signedInAs}</strong>${shown.offered === null ? "" : html`; signing in as ${shown.offered.reviewer} replaces that`}.</p>`;
  const next = html`<input type="hidden" name="next" value="${shown.next}">`;
  const body =
    shown.offered === null
      ? html`${error}${current}<form method="post" action="/login" id="sign-in-form"><label>Reviewer token <input type="password" name="token" id="token" autocomplete="current-password" required></label>${next} <button type="submit" id="sign-in">Sign in</button></form>
<p class="muted">Your operator gives each reviewer a token (RAGSCOPE_UI_TOKENS or RAGSCOPE_UI_TENANT_TOKENS, ui/README.md "Access"). Scripts and tools send it as <code>Authorization: Bearer &lt;token&gt;</code> instead.</p>`
      : html`${error}<p id="offered">This link signs you in to ragscope as reviewer <strong id="offered-reviewer">${shown.offered.reviewer}</strong>, reading ${describeTenants(shown.offered.tenants)}.</p>
<p class="caution" id="sign-in-caution">Continue only if this is your own token, or a link you asked for. A link from someone else signs you in as them: the reviews, labels and imports you then save would be theirs, in their tenant.</p>
${current}<form method="post" action="/login" id="sign-in-form"><input type="hidden" name="token" value="${shown.offered.token}">${next}<button type="submit" id="sign-in">Sign in as ${shown.offered.reviewer}</button></form>`;
  // Not signed in: the header links to no page (each would only answer with this one) and names nobody.
  return page("Sign in", shown.signedInAs === null ? null : { reviewer: shown.signedInAs, signOut: true }, body, ["/static/sign-in.js"]);
}
