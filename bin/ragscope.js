#!/usr/bin/env node
// The ragscope command. Sources are TypeScript; tsx compiles them on the fly so
// a clone runs without a build step (`npm run build` emits dist/ for packaging).
import { register } from "tsx/esm/api";

register();
const { main } = await import("../collector/cli/main.ts");
process.exitCode = await main(process.argv);
