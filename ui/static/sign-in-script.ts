/**
 * The sign-in page's script: takes `token` out of the address bar, so that
 * the browser's history and a copied address do not keep it. The page's form
 * still holds the token, and works without this script. Served as
 * /static/sign-in.js, the one asset a browser without a session may load.
 */
export const SIGN_IN_SCRIPT = `(() => {
  const address = new URL(window.location.href);
  if (!address.searchParams.has("token")) return;
  address.searchParams.delete("token");
  window.history.replaceState(null, "", address.pathname + address.search + address.hash);
})();
`;
