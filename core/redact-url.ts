/**
 * An endpoint URL as it may be shown — in start lines (`serve`'s "LLM judge …
 * at …") and in `ragscope config` — with its credentials masked: the userinfo's
 * password (`http://user:sk-…@host` → `http://user:********@host`), a token
 * given as the user name alone (`https://ghp_…@host`), and the values
 * of query parameters that look like secrets (`?api-key=…`, `key`, `token`,
 * `secret`, `password`, `access_token`, `sig`, and names ending so, such as
 * `x-api-key` or `client_secret`). Host, port, path and the other parameters
 * stay, so the line still says which endpoint is meant. Text that is not an
 * absolute URL is returned unchanged.
 */
export const URL_SECRET_MASK = "********";

const ABSOLUTE_URL = /^[a-z][a-z0-9+.-]*:\/\//i;
/** Parameter names (case-insensitive, `-` and `_` alike) whose values are credentials. */
const SECRET_PARAMETER = /(?:^|[-_])(?:api[-_]?key|key|token|secret|password|passwd|access[-_]token|sig|signature)$/i;

export function isSecretQueryParameter(name: string): boolean {
  return SECRET_PARAMETER.test(name.trim());
}

export function redactUrl(text: string): string {
  if (!ABSOLUTE_URL.test(text)) return text;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return text;
  }
  let changed = false;
  // `user:password@`: the password is the secret, the user name stays (as `ragscope config` always showed it);
  // a user name alone is a token given as the user name (`https://ghp_…@host`).
  if (url.password !== "") {
    url.password = URL_SECRET_MASK;
    changed = true;
  } else if (url.username !== "") {
    url.username = URL_SECRET_MASK;
    changed = true;
  }
  for (const name of new Set(url.searchParams.keys())) {
    if (!isSecretQueryParameter(name)) continue;
    url.searchParams.set(name, URL_SECRET_MASK);
    changed = true;
  }
  return changed ? url.toString() : text;
}
