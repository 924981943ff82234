/**
 * Files the pages load from this server: uPlot's script and stylesheet, read
 * once from node_modules (the package ships them prebuilt; no CDN, no build
 * step), and the UI's own client scripts.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { CHART_SCRIPT } from "./chart-script.js";
import { LIVE_SCRIPT } from "./live-script.js";
import { SIGN_IN_SCRIPT } from "./sign-in-script.js";

export interface StaticAsset {
  body: string;
  contentType: string;
}

const JAVASCRIPT = "text/javascript; charset=utf-8";
const require = createRequire(import.meta.url);
let assets: Map<string, StaticAsset> | null = null;

/** Path under /static/ → the file; read on first use. */
export function staticAssets(): Map<string, StaticAsset> {
  assets ??= new Map([
    ["uPlot.iife.min.js", { body: readFileSync(require.resolve("uplot/dist/uPlot.iife.min.js"), "utf8"), contentType: JAVASCRIPT }],
    ["uPlot.min.css", { body: readFileSync(require.resolve("uplot/dist/uPlot.min.css"), "utf8"), contentType: "text/css; charset=utf-8" }],
    ["live.js", { body: LIVE_SCRIPT, contentType: JAVASCRIPT }],
    ["charts.js", { body: CHART_SCRIPT, contentType: JAVASCRIPT }],
    ["sign-in.js", { body: SIGN_IN_SCRIPT, contentType: JAVASCRIPT }],
  ]);
  return assets;
}
