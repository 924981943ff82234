/**
 * An application module in a folder of its own that imports "ragscope/…" by
 * name, as a user's app does: the folder's node_modules/ragscope links to
 * this checkout (its dist), and the app runs as a child process exporting to
 * the receiver it is given (RAGSCOPE_ENDPOINT).
 */
import { spawn } from "node:child_process";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/**
 * Writes `source` as `folder/file` beside a node_modules/ragscope link to this checkout.
 * @param dependencies packages the application imports besides ragscope (the Vercel AI SDK `ai`, `@langchain/core`), linked from this
 * checkout's node_modules: the versions the project's tests pin, resolving their own dependencies there
 */
export async function writeApplication(folder: string, file: string, source: string, dependencies: readonly string[] = []): Promise<void> {
  await mkdir(path.join(folder, "node_modules"), { recursive: true });
  await symlink(projectRoot, path.join(folder, "node_modules", "ragscope"), "dir");
  for (const name of dependencies) {
    const linked = path.join(folder, "node_modules", name);
    await mkdir(path.dirname(linked), { recursive: true });
    await symlink(path.join(projectRoot, "node_modules", name), linked, "dir");
  }
  await writeFile(path.join(folder, file), source);
}

/** Runs `folder/file` with node until it exits; its stdout and stderr together. */
export function runApplication(folder: string, file: string, receiver: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [file], { cwd: folder, env: { ...process.env, RAGSCOPE_ENDPOINT: receiver } });
    let output = "";
    child.stdout.on("data", (part: Buffer) => (output += part.toString()));
    child.stderr.on("data", (part: Buffer) => (output += part.toString()));
    child.on("exit", (code) => resolve({ code, output }));
  });
}
