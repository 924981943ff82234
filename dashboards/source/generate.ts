/**
 * `npm run dashboards`: writes the generated dashboard and alert files.
 * `npm run dashboards -- --check`: writes nothing, exits 1 when a committed
 * file differs from what the sources generate.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { projectRoot, renderGeneratedFiles } from "./generated-files.js";

async function main(argv: string[]): Promise<number> {
  const check = argv.includes("--check");
  const rendered = await renderGeneratedFiles();
  if (!rendered.ok) {
    console.error(rendered.error);
    return 1;
  }
  const stale: string[] = [];
  for (const [file, text] of rendered.value) {
    const target = path.join(projectRoot, file);
    const current = await readFile(target, "utf8").catch(() => null);
    if (current === text) continue;
    if (check) stale.push(file);
    else {
      await mkdir(path.dirname(target), { recursive: true });
      await writeFile(target, text);
      console.log(`wrote ${file}`);
    }
  }
  if (stale.length > 0) {
    console.error(`stale generated files (run npm run dashboards): ${stale.join(", ")}`);
    return 1;
  }
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
