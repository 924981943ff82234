/**
 * What `npm pack` ships (`npm pack --dry-run`): the compiled JavaScript and
 * type declarations of every `exports` entry and of the CLI, the files the
 * CLI reads at run time, and nothing a user does not need.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { packProject, type PackedFile } from "./packed-package.js";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

describe("npm pack", () => {
  let files: Set<string>;
  let manifest: { bin: Record<string, string>; exports: Record<string, { types: string; default: string }> };
  before(async () => {
    const packed = await packProject(projectRoot, null);
    files = new Set(packed.files.map((file: PackedFile) => file.path));
    manifest = JSON.parse(await readFile(path.join(projectRoot, "package.json"), "utf8"));
  });

  test("ships compiled JavaScript and declarations for every exports entry", () => {
    for (const [entry, target] of Object.entries(manifest.exports)) {
      assert.ok(files.has(target.default.replace(/^\.\//, "")), `${entry}: ${target.default}`);
      assert.ok(files.has(target.types.replace(/^\.\//, "")), `${entry}: ${target.types}`);
    }
  });

  test("ships the CLI and what it reads at run time", () => {
    for (const file of Object.values(manifest.bin)) assert.ok(files.has(file), file);
    for (const file of [
      "dist/collector/wiring/cli/main.js",
      "deploy/clickhouse/migrations/0001_core_tables.sql",
      "deploy/clickhouse/new-store-schema.sql",
      "dashboards/rag-quality.json",
      "dashboards/gates/ragscope-gates.yaml",
      "examples/datasets/policy-regression.yaml",
      "dist/examples/policy-assistant/run-cases.js",
      "dist/examples/policy-assistant/corpus/policy-chunks.json",
    ]) {
      assert.ok(files.has(file), file);
    }
  });

  test("ships every document the README and the CLI's messages point to", async () => {
    const readme = await readFile(path.join(projectRoot, "README.md"), "utf8");
    const named = new Set([...readme.matchAll(/[A-Za-z0-9_/-]+\.md\b/g)].map((match) => match[0]));
    named.add("LOCAL-JUDGE.md"); // the release gate's message when only the heuristic judge scored a metric
    const missing = [...named].filter((file) => existsSync(path.join(projectRoot, file)) && !files.has(file));
    assert.deepEqual(missing, []);
  });

  test("ships every deploy/ file the shipped documents name, except the repository-only stack files the README says are not in the package", async () => {
    // These build and run the image from the repository's sources (COPY . ., npm ci): useless from node_modules.
    const repositoryOnly = ["deploy/.env", "deploy/Dockerfile", "deploy/docker-compose.yaml", "deploy/k8s"];
    const documents = [...files].filter((file) => file.endsWith(".md"));
    const named = new Set<string>();
    for (const document of documents) {
      const text = await readFile(path.join(projectRoot, document), "utf8");
      for (const match of text.matchAll(/deploy\/[A-Za-z0-9_./-]*[A-Za-z0-9_/-]/g)) named.add(match[0].replace(/\/$/, ""));
    }
    const missing = [...named].filter(
      (name) => name !== "deploy" && !repositoryOnly.some((only) => name === only || name.startsWith(`${only}.`) || name.startsWith(`${only}/`)) && ![...files].some((file) => file === name || file.startsWith(`${name}/`)),
    );
    assert.deepEqual(missing, [], "named in a shipped document, absent from the package");
    const readme = await readFile(path.join(projectRoot, "README.md"), "utf8");
    const whereTheFilesAre = /\*\*Where the files are\.\*\*([\s\S]*?)\n\n/.exec(readme)?.[1] ?? "";
    for (const only of repositoryOnly.filter((name) => name !== "deploy/.env")) {
      assert.ok(whereTheFilesAre.includes(only) || (only === "deploy/docker-compose.yaml" && whereTheFilesAre.includes("compose file")), `README says ${only} is in the repository only`);
    }
    assert.match(whereTheFilesAre, /source repository only, not in the npm package/);
  });

  test("ships the SDK's export worker, which is loaded by path when setupRagscope starts it, not imported", () => {
    assert.ok(files.has("dist/instrumentation/export/export-worker.js"));
  });

  test("ships nothing a user does not need: no tests, CI, sources, fixtures or build state", () => {
    const unwanted = [...files].filter(
      (file) =>
        file.startsWith("test/") ||
        file.startsWith("dist/test/") ||
        file.startsWith(".ci/") ||
        file.startsWith("dashboards/source/") ||
        (file.endsWith(".ts") && !file.endsWith(".d.ts")) ||
        file.endsWith(".tsbuildinfo") ||
        file.endsWith(".map"),
    );
    assert.deepEqual(unwanted, []);
  });
});
