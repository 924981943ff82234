/**
 * The page shell: server-rendered HTML (the html tag of markup.ts escapes every
 * interpolated value and shows control characters by their code), one stylesheet inline, and one small script from this server for
 * the live list. No CDN, nothing fetched from elsewhere (the Content Security
 * Policy of ui-app.ts says so too).
 */
import { html, raw } from "./markup.js";
import type { HtmlEscapedString } from "hono/utils/html";

export type Markup = HtmlEscapedString | Promise<HtmlEscapedString>;

const STYLE = `
body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#1d2330;background:#f6f7f9}
header{background:#1d2330;color:#fff;padding:8px 16px;display:flex;flex-wrap:wrap;gap:8px 16px;align-items:center}
header nav{display:flex;flex-wrap:wrap;gap:8px 16px}header a{color:#cfe0ff;text-decoration:none}header .who{margin-left:auto;color:#aab}header form{margin:0}
main{padding:12px 16px;overflow-x:auto}h1{overflow-wrap:anywhere}table{border-collapse:collapse;width:100%;background:#fff}
th,td{border-bottom:1px solid #e3e6ea;padding:4px 6px;text-align:left;vertical-align:top}
th{background:#eef1f5;font-weight:600}td.text{max-width:320px;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.verdict{padding:1px 6px;border-radius:3px;font-size:12px}.passed{background:#d7f5dd}.failed{background:#fbd5d5}
.review_required{background:#fdf0c8}.unjudged,.not_evaluated{background:#e6e6e6}.human{outline:2px solid #5a3fd1}
form.filters{display:flex;flex-wrap:wrap;gap:6px;margin-bottom:10px}form.filters label{display:flex;flex-direction:column;font-size:12px}
section{background:#fff;margin:0 0 12px;padding:8px 12px;border:1px solid #e3e6ea;overflow-x:auto}
.bar{background:#5a8dee;height:14px;min-width:2px}.muted{color:#777}pre{white-space:pre-wrap;overflow-wrap:anywhere;margin:0}
.control-character{font:12px monospace;color:#a40000;background:#fdecec;border:1px solid #f3b4b4;border-radius:2px;padding:0 1px}
.error{color:#a40000}.notice{color:#1d6b2a}.caution{font-size:12px;color:#6a4a00;margin:4px 0 0;max-width:360px}
`;

/**
 * Who the page is shown to, for its header. `signOut`: the reviewer came from
 * this browser's session (not an Authorization header, nor the loopback
 * default without tokens), so the header offers to end it. Null: nobody is
 * signed in (the sign-in page); the header then links nowhere, since every
 * other page would answer with the sign-in page again.
 */
export interface Viewer {
  reviewer: string;
  signOut: boolean;
}

function header(viewer: Viewer | null): Markup {
  if (viewer === null) return html`<header><strong>ragscope</strong><span class="who" id="not-signed-in">not signed in</span></header>`;
  // A form, not a link: signing out changes state, so it is a POST from this origin (ui-app.ts, /logout).
  const signOut = viewer.signOut ? html`<form method="post" action="/logout" id="sign-out-form"><button type="submit" id="sign-out">Sign out</button></form>` : "";
  return html`<header><strong>ragscope</strong><nav aria-label="Pages"><a href="/traces">Traces</a><a href="/quality">Quality over time</a><a href="/failures">Failures</a><a href="/runs">Runs</a><a href="/experiments">Experiments</a><a href="/review">Review queue</a></nav><span class="who">reviewer: <span id="reviewer">${viewer.reviewer}</span></span>${signOut}</header>`;
}

export function page(title: string, viewer: Viewer | null, body: Markup, scripts: string[] = [], stylesheets: string[] = []): Markup {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title} · ragscope</title><style>${raw(STYLE)}</style>${stylesheets.map((source) => html`<link rel="stylesheet" href="${source}">`)}</head>
<body>${header(viewer)}
<main><h1>${title}</h1>${body}</main>
${scripts.map((source) => html`<script src="${source}"></script>`)}
</body></html>`;
}

/** Data for the page's client script as a JSON script element: never run by the browser, and `<` escaped so nothing in it can end the element. */
export function jsonData(id: string, value: unknown): Markup {
  return html`<script type="application/json" id="${id}">${raw(JSON.stringify(value).replaceAll("<", "\\u003c"))}</script>`;
}

export function verdictBadge(status: string, human: boolean): Markup {
  return html`<span class="verdict ${status}${human ? " human" : ""}" data-verdict="${status}" data-human="${human ? "yes" : "no"}">${status}${human ? " (human)" : ""}</span>`;
}

export function optional(value: string | number | null | undefined): Markup {
  return value === null || value === undefined || value === "" ? html`<span class="muted">—</span>` : html`${String(value)}`;
}
