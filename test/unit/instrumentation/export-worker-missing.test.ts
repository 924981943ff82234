/**
 * An application bundled without the export worker's file (a bundler that
 * follows imports only; the worker is loaded by path): the SDK says so once on
 * stderr and exports from the application's thread — the batch that was
 * already posted to the worker included, since the worker never loaded and so
 * never sent it. Run on the compiled package (`npm run build` first): its
 * instrumentation, contracts and core, copied without export-worker.js.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { cp, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startTestReceiver, type TestReceiver } from "./otlp-test-receiver.js";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

describe("the export worker's file is missing", () => {
  let receiver: TestReceiver;
  let folder: string;
  before(async () => {
    receiver = await startTestReceiver();
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-no-worker-"));
    for (const part of ["instrumentation", "contracts", "core"]) {
      await cp(path.join(projectRoot, "dist", part), path.join(folder, "dist", part), {
        recursive: true,
        filter: (source) => path.basename(source) !== "export-worker.js",
      });
    }
    await writeFile(path.join(folder, "package.json"), JSON.stringify({ name: "bundled-app", private: true, type: "module" }));
    await symlink(path.join(projectRoot, "node_modules"), path.join(folder, "node_modules"), "dir");
    await writeFile(
      path.join(folder, "app.js"),
      `import { setupRagscope, traceRequest } from "./dist/instrumentation/index.js";
const handle = setupRagscope({ serviceName: "bundled", exportInWorker: true, flushOnExit: false });
for (let index = 0; index < 3; index += 1) await traceRequest({ query: "q" + index }, async () => "done");
await handle.shutdown();
console.log(JSON.stringify(handle.statistics()));
`,
    );
  });
  after(async () => {
    await receiver.close();
    await rm(folder, { recursive: true, force: true });
  });

  test("says so once on stderr and exports every span from the application's thread", async () => {
    const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, ["app.js"], { cwd: folder, env: { ...process.env, RAGSCOPE_ENDPOINT: receiver.endpoint } });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (part: Buffer) => (stdout += part.toString()));
      child.stderr.on("data", (part: Buffer) => (stderr += part.toString()));
      child.on("exit", (code) => resolve({ code, stdout, stderr }));
    });
    assert.equal(result.code, 0, result.stderr);
    const warnings = result.stderr.split("\n").filter((line) => line.startsWith("ragscope:"));
    assert.equal(warnings.length, 1, result.stderr);
    assert.match(warnings[0]!, /the export worker stopped \(.*export-worker\.js.*\); spans are exported from the application's thread from now on/);
    const statistics = JSON.parse(result.stdout.trim().split("\n").at(-1)!) as { exported: number; failed: number };
    assert.deepEqual({ exported: statistics.exported, failed: statistics.failed }, { exported: 3, failed: 0 });
    assert.equal(receiver.spans.length, 3);
  });
});
