/**
 * `ragscope config` exits 2 for every setting a role would refuse at start,
 * not only for what the settings schema checks: the alert gate file a setting
 * names (missing, or with a rule that can never be met), the web UI's
 * variables, and two listeners on one port — read with the functions `serve`
 * starts with (`ragscope config` as a subprocess).
 */
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { runRagscope } from "../../support/run-ragscope.js";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

describe("ragscope config checks what the roles read at start", () => {
  let folder: string;
  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-config-checks-"));
  });
  after(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  test("an alert gate file that does not exist: exit 2 naming the file, as serve refuses it", () => {
    const missing = path.join(folder, "absent-gates.yaml");
    const result = runRagscope(["config"], folder, { RAGSCOPE_ALERT_GATE_FILE: missing });
    assert.equal(result.status, 2, result.stdout);
    assert.match(result.stderr, /^ragscope config: the configuration is invalid/);
    assert.match(result.stderr, new RegExp(`alerts gate file ${escape(missing)}: gate file not found`));
  });

  test("an alert gate file with a rule that can never be met: exit 2 naming the rule; the packaged gate file passes", async () => {
    const file = path.join(folder, "impossible-gates.yaml");
    await writeFile(file, 'retrieval:\n  recall_at_5: ">= 1.5"\n');
    const result = runRagscope(["config"], folder, { RAGSCOPE_ALERT_GATE_FILE: file });
    assert.equal(result.status, 2, result.stdout);
    assert.match(result.stderr, new RegExp(`alerts gate file ${escape(file)}: retrieval\\.recall_at_5: ">= 1\\.5" can never be met`));

    const packaged = runRagscope(["config"], folder, { RAGSCOPE_ALERT_GATE_FILE: path.join(projectRoot, "dashboards/gates/ragscope-gates.yaml") });
    assert.equal(packaged.status, 0, packaged.stderr);
  });

  test("a web UI variable serve refuses: exit 2 naming it", () => {
    const result = runRagscope(["config"], folder, { RAGSCOPE_UI_BEHIND_TLS: "sure" });
    assert.equal(result.status, 2, result.stdout);
    assert.match(result.stderr, /RAGSCOPE_UI_BEHIND_TLS: must be true or false/);
  });

  test("two listeners on one port: exit 2 naming both settings", () => {
    const result = runRagscope(["config", "--port", "36711", "--metrics-port", "36711"], folder);
    assert.equal(result.status, 2, result.stdout);
    assert.match(result.stderr, /the OTLP\/HTTP receiver \(flag --port\) and \/metrics, \/healthz and \/readyz \(flag --metrics-port\) are both set to port 36711/);
  });
});
