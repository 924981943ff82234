/**
 * `ragscope …` run as a user runs it — bin/ragscope.js in a subprocess, built
 * from dist — with none of the RAGSCOPE_ variables of the machine running the
 * tests, so only the settings a test gives reach the command.
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const ragscope = path.join(projectRoot, "bin/ragscope.js");

export interface RagscopeExit {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `ragscope args` in `cwd` to its end; `timeoutMs` stops a command that would otherwise keep serving. */
export function runRagscope(args: string[], cwd: string, environment: Record<string, string> = {}, timeoutMs = 60_000): RagscopeExit {
  const cleanEnvironment = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("RAGSCOPE_")));
  const child = spawnSync(process.execPath, [ragscope, ...args], { encoding: "utf8", cwd, env: { ...cleanEnvironment, ...environment }, timeout: timeoutMs });
  return { status: child.status, stdout: child.stdout, stderr: child.stderr };
}
