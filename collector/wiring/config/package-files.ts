/**
 * Where the files that ship with ragscope are, wherever it runs from: the
 * TypeScript sources of a clone (`collector/wiring/config/package-files.ts`) or the
 * compiled package (`dist/collector/wiring/config/package-files.js`, installed under a
 * user's `node_modules/ragscope`). Both sit below the package root, the first
 * folder up whose package.json names ragscope; the migrations, dashboards, gate
 * file and example dataset are found from there (package.json `files` ships them).
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const PACKAGE_NAME = "ragscope";

function findPackageRoot(start: string): string {
  for (let folder = start; ; folder = path.dirname(folder)) {
    const manifest = path.join(folder, "package.json");
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, "utf8")) as { name?: unknown }).name === PACKAGE_NAME) return folder;
    // A broken installation is a bug of the package, not an expected failure.
    if (path.dirname(folder) === folder) throw new Error(`ragscope: no package.json named ${PACKAGE_NAME} above ${start}; the installation is incomplete`);
  }
}

const moduleFile = fileURLToPath(import.meta.url);

export const packageRoot = findPackageRoot(path.dirname(moduleFile));

/** The package's version, as `ragscope --version` prints it. */
export const packageVersion = (JSON.parse(readFileSync(path.join(packageRoot, "package.json"), "utf8")) as { version: string }).version;

export const packageFiles = {
  migrations: path.join(packageRoot, "deploy/clickhouse/migrations"),
  newStoreSchema: path.join(packageRoot, "deploy/clickhouse/new-store-schema.sql"),
  dashboards: path.join(packageRoot, "dashboards"),
  gateFile: path.join(packageRoot, "dashboards/gates/ragscope-gates.yaml"),
  demoDataset: path.join(packageRoot, "examples/datasets/policy-regression.yaml"),
} as const;

/** True when this code runs from TypeScript sources (tests, a loader) rather than the compiled package. */
const runningFromSources = moduleFile.endsWith(".ts");

/**
 * The `node` arguments that run one of the package's own modules as a child
 * process, e.g. `examples/policy-assistant/run-cases`: the compiled file in the
 * package, or the source through tsx (a development dependency) in a clone's tests.
 */
export function nodeArgumentsFor(modulePath: string): string[] {
  return runningFromSources
    ? ["--import", "tsx", path.join(packageRoot, `${modulePath}.ts`)]
    : [path.join(packageRoot, "dist", `${modulePath}.js`)];
}
