/**
 * Where a sign-in may send the browser afterwards: a path of this server only.
 * The address comes from the request (`/traces?token=…`) or from the sign-in
 * form's `next` field, which anyone can post, so it is read as untrusted:
 * leading slashes and backslashes collapse, before and after dot segments
 * resolve (`//evil.example/x` is a
 * protocol-relative address of another site; browsers read `/\evil.example`
 * the same way), anything that still names another origin (`https://…`,
 * `javascript:…`) becomes `/`, and the `token` parameter is dropped so that no
 * address the browser keeps holds a token.
 */
const BASE = "http://ragscope.invalid";

export function localPath(address: string): string {
  let parsed: URL;
  try {
    parsed = new URL(address.replace(/^[/\\]+/, "/"), BASE);
  } catch {
    return "/";
  }
  if (parsed.origin !== BASE) return "/";
  parsed.searchParams.delete("token");
  // Dot segments resolve after the collapse above: "/.//evil.example" and "/%2e//evil.example" parse to the path
  // "//evil.example", which a Location header or a link reads as another site. So the resolved path collapses too.
  return `${parsed.pathname.replace(/^\/+/, "/")}${parsed.search}`;
}
