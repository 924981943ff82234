/**
 * A temporary folder for a test that runs `eval` and `gate` as subprocesses: the store's folder, a gate file of the
 * lines given and a dataset file of the object given. The caller removes `folder` when done.
 */
import { mkdtemp, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";

export interface GateWorkspace {
  folder: string;
  dataDir: string;
  gates: string;
  dataset: string;
}

export async function gateWorkspace(name: string, gateLines: readonly string[], dataset: unknown): Promise<GateWorkspace> {
  const folder = await mkdtemp(path.join(os.tmpdir(), `ragscope-${name}-`));
  const workspace = { folder, dataDir: path.join(folder, "store"), gates: path.join(folder, "gates.yaml"), dataset: path.join(folder, "cases.json") };
  await writeFile(workspace.gates, [...gateLines, ""].join("\n"));
  await writeFile(workspace.dataset, JSON.stringify(dataset));
  return workspace;
}
