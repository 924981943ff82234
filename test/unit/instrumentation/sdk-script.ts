/**
 * Runs a small application as users write it — an ES module that imports the SDK (`SDK` is the import path to
 * splice in) — as its own Node process, for behaviour seen from outside: what it prints, on stderr, and its exit.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

/** The SDK's entry point, quoted for an import in a script. */
export const SDK = JSON.stringify(fileURLToPath(new URL("../../../instrumentation/index.ts", import.meta.url)));

export interface ScriptResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runSdkScript(script: string, environment: Record<string, string>): Promise<ScriptResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { env: { ...process.env, ...environment } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (part: Buffer) => (stdout += part.toString()));
    child.stderr.on("data", (part: Buffer) => (stderr += part.toString()));
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
  });
}
