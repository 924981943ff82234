#!/usr/bin/env node
// The ragscope command: the compiled CLI in dist/ (built by `npm run build`,
// which `npm install` in a clone and `npm pack` run through the `prepare` script).
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const compiled = new URL("../dist/collector/wiring/cli/main.js", import.meta.url);
if (!existsSync(fileURLToPath(compiled))) {
  console.error(`ragscope: the compiled command is missing (${fileURLToPath(compiled)}); run \`npm run build\` in ${fileURLToPath(new URL("..", import.meta.url))}`);
  process.exit(2);
}
const { main } = await import(compiled.href);
process.exitCode = await main(process.argv);
