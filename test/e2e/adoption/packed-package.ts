/**
 * The package as users get it: `npm pack` (which builds through `prepare`)
 * and `npm install` of the tarball into a fresh application folder with its
 * own package.json — no link to the repository's sources or node_modules.
 */
import { execFile } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

export interface PackedFile {
  path: string;
  size: number;
}

/** `npm pack --json` (or `--dry-run`) in the project; the tarball's name and its file list. */
export async function packProject(projectRoot: string, destination: string | null): Promise<{ tarball: string | null; files: PackedFile[] }> {
  const args = destination === null ? ["pack", "--dry-run", "--json"] : ["pack", "--json", "--pack-destination", destination];
  const { stdout } = await run("npm", args, { cwd: projectRoot, maxBuffer: 64 * 1024 * 1024 });
  // npm prints the build's output (prepare) before the JSON document.
  const [report] = JSON.parse(stdout.slice(stdout.indexOf("\n[") + 1)) as [{ filename: string; files: PackedFile[] }];
  return { tarball: destination === null ? null : path.join(destination, report.filename), files: report.files };
}

/** A new application folder with the tarball (and extra packages) installed from the registry's cache. */
export async function createApplication(folder: string, tarball: string, extraPackages: readonly string[]): Promise<void> {
  await mkdir(folder, { recursive: true });
  await writeFile(path.join(folder, "package.json"), JSON.stringify({ name: "my-rag-app", version: "1.0.0", private: true, type: "module" }, null, 2));
  await run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", tarball, ...extraPackages], { cwd: folder, maxBuffer: 64 * 1024 * 1024 });
}
