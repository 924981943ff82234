/**
 * The import rules of the top-level folders (README "Layout"): core/ is the
 * module every side shares, so it may import nothing but node built-ins, zod
 * and yaml (the YAML reader of the files users write, which the collector and
 * the dashboards both read; it has no dependencies of its own); contracts/
 * holds schemas and attribute names, so it may import zod and core/ only. Read from the source files themselves, so a new import that
 * breaks the rule fails here.
 */
import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import { builtinModules } from "node:module";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const repositoryRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

async function sourceFiles(folder: string): Promise<string[]> {
  const entries = await readdir(path.join(repositoryRoot, folder), { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts"))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

/** Every module specifier a file imports or re-exports, static or dynamic. */
function importedSpecifiers(source: string): string[] {
  const specifiers: string[] = [];
  for (const match of source.matchAll(/(?:^|\n)\s*(?:import|export)\b[^"';]*?from\s*["']([^"']+)["']/g)) specifiers.push(match[1]!);
  for (const match of source.matchAll(/(?:^|\n)\s*import\s*["']([^"']+)["']/g)) specifiers.push(match[1]!);
  for (const match of source.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g)) specifiers.push(match[1]!);
  return specifiers;
}

const builtins = new Set(builtinModules);
const isBuiltin = (specifier: string) => specifier.startsWith("node:") || builtins.has(specifier);

/** Specifiers in `folder` that fall outside what it may import. */
async function violations(folder: string, allowedFolders: readonly string[], allowedPackages: readonly string[] = []): Promise<string[]> {
  const found: string[] = [];
  for (const file of await sourceFiles(folder)) {
    for (const specifier of importedSpecifiers(await readFile(file, "utf8"))) {
      if (isBuiltin(specifier) || specifier === "zod" || specifier.startsWith("zod/") || allowedPackages.includes(specifier)) continue;
      if (specifier.startsWith(".")) {
        const target = path.relative(repositoryRoot, path.resolve(path.dirname(file), specifier));
        if (allowedFolders.some((allowed) => target.startsWith(`${allowed}/`))) continue;
      }
      found.push(`${path.relative(repositoryRoot, file)} imports ${specifier}`);
    }
  }
  return found;
}

test("core/ imports nothing but node built-ins, zod and yaml", async () => {
  assert.ok((await sourceFiles("core")).length >= 3, "core/ holds the shared modules");
  assert.deepEqual(await violations("core", ["core"], ["yaml"]), []);
});

test("contracts/ imports only zod and core/", async () => {
  assert.deepEqual(await violations("contracts", ["contracts", "core"]), []);
});

test("the shared modules live in core/, not in contracts/", async () => {
  const contracts = (await sourceFiles("contracts")).map((file) => path.basename(file));
  for (const moved of ["retry.ts", "result.ts", "sensitive-data.ts"]) assert.ok(!contracts.includes(moved), `contracts/${moved} is back`);
});

test("the import scan sees imports, re-exports and dynamic imports", () => {
  const source = 'import { a } from "./a.js";\nexport * from "../b.js";\nimport "side-effect";\nconst c = await import("kafkajs");\nimport type { D } from\n  "./d.js";';
  assert.deepEqual(importedSpecifiers(source).sort(), ["../b.js", "./a.js", "./d.js", "kafkajs", "side-effect"]);
});
