/** `ragscope` as a user runs it: a subprocess of bin/ragscope.js, its output and exit code. */
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
export const ragscopeBinary = path.join(projectRoot, "bin/ragscope.js");
export const tasksFolder = path.join(projectRoot, "test/e2e/experiments/tasks");

export interface Finished {
  status: number | null;
  stdout: string;
  stderr: string;
}

export function runRagscope(args: string[], environment: Record<string, string> = {}): Promise<Finished> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [ragscopeBinary, ...args], { cwd: projectRoot, env: { ...process.env, RAGSCOPE_CONFIG: "", ...environment } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("exit", (status) => resolve({ status, stdout, stderr }));
  });
}
