/**
 * Loads the task module of `ragscope eval --task FILE`: its default export (or
 * an export named `task`) is the task function; an optional `lineage` export
 * gives run lineage (lineage.ts). A TypeScript module is loaded through tsx
 * when it is installed (it is not a dependency of ragscope); otherwise the
 * error says to compile it or install tsx.
 */
import path from "node:path";
import { pathToFileURL } from "node:url";
import { readableFile } from "../core/file-access-problems.js";
import { failure, success, type Result } from "../core/result.js";
import { isLineageField, type LineageValues } from "./lineage.js";
import type { ExperimentTask } from "./task.js";

export interface TaskModule {
  task: ExperimentTask;
  lineage: LineageValues;
}

export async function loadTaskModule(file: string): Promise<Result<TaskModule, string>> {
  const absolute = path.resolve(file);
  const readable = await readableFile(file, "task module");
  if (!readable.ok) return readable;
  if ([".ts", ".mts", ".cts"].includes(path.extname(absolute))) {
    try {
      const tsx = (await import("tsx/esm/api" as string)) as { register: () => unknown };
      tsx.register();
    } catch {
      return failure(`${file}: a TypeScript task needs tsx (npm install --save-dev tsx), or compile it and pass the .js file`);
    }
  }
  let loaded: Record<string, unknown>;
  try {
    loaded = (await import(pathToFileURL(absolute).href)) as Record<string, unknown>;
  } catch (error) {
    return failure(`${file}: cannot load the task module (${(error as Error).message.split("\n")[0]})${esModuleSyntaxHint(error, absolute)}${missingPackageHint(error)}`);
  }
  const task = typeof loaded.default === "function" ? loaded.default : loaded.task;
  if (typeof task !== "function") return failure(`${file}: export the task as the default export or as "task": a function (case, context) => Promise<answer>`);
  const lineage: LineageValues = {};
  if (typeof loaded.lineage === "object" && loaded.lineage !== null) {
    for (const [key, value] of Object.entries(loaded.lineage)) if (isLineageField(key) && typeof value === "string") lineage[key] = value;
  }
  return success({ task: task as ExperimentTask, lineage });
}

/**
 * Node reads a `.js` file outside a `"type": "module"` package (and any `.cjs`
 * file) as CommonJS, where `import` and `export` are syntax errors; the
 * message Node gives says what broke but not how to fix it in a task module.
 */
function esModuleSyntaxHint(error: unknown, absolute: string): string {
  // A .ts file outside a "type": "module" package is compiled as CommonJS too, and its imports of ES modules (ragscope
  // itself) become require() calls that Node refuses with a message about cycles, which says nothing of the cause.
  if (path.extname(absolute) === ".ts" && error instanceof Error && /Cannot require\(\) ES Module|Cannot use import statement outside a module|ERR_REQUIRE_(?:ESM|CYCLE_MODULE)/.test(`${error.message} ${(error as { code?: string }).code ?? ""}`)) {
    return `; Node loaded it as CommonJS, where it cannot import ES modules such as ragscope: rename it to ${path.basename(absolute).replace(/\.ts$/, ".mts")}, or set "type": "module" in the nearest package.json`;
  }
  if (!(error instanceof SyntaxError)) return "";
  if (!/Cannot use import statement outside a module|Unexpected token 'export'/.test(error.message)) return "";
  const renamed = path.basename(absolute).replace(/\.c?js$/, ".mjs");
  const packageType = path.extname(absolute) === ".js" ? ', or set "type": "module" in the nearest package.json' : "";
  return `; Node loaded it as CommonJS, where import and export are not allowed: rename it to ${renamed}${packageType}`;
}

/**
 * A task module beside no install of ragscope cannot import it. The package is not on the npm registry: the fix is
 * installing it from a clone where the task lives.
 */
function missingPackageHint(error: unknown): string {
  if (!(error instanceof Error) || !/Cannot find package 'ragscope'/.test(error.message)) return "";
  return "; install ragscope where the task module is: npm install /path/to/a/ragscope/clone (or the tarball npm pack makes in it)";
}
