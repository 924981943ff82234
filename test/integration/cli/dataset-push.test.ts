/**
 * `ragscope dataset push` as a user runs it (bin/ragscope.js as a subprocess):
 * Eval Cases go into an embedded store folder, and are read back from it the
 * way an evaluator looks them up (by case_id and case_version). Exit codes as
 * in the README: 0 pushed, 1 invalid dataset (nothing pushed), 2 could not run.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { ClickHouseCaseStore } from "../../../store/clickhouse/clickhouse-case-store.js";
import { openClickHouse } from "../../../store/clickhouse/clickhouse-connection.js";
import { queryRows } from "../../support/temporary-store.js";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const ragscope = path.join(projectRoot, "bin/ragscope.js");
const demoDataset = path.join(projectRoot, "examples/datasets/policy-regression.yaml");

function run(args: string[], cwd: string) {
  const child = spawnSync(process.execPath, [ragscope, ...args], { encoding: "utf8", cwd, env: { ...process.env, RAGSCOPE_CLICKHOUSE_URL: "", RAGSCOPE_DATA_DIR: "", RAGSCOPE_CONFIG: "" } });
  return { status: child.status, stdout: child.stdout, stderr: child.stderr };
}

const embedded = (dataPath: string) => ({ url: null, username: "default", password: "", database: "ragscope", dataPath });

describe("ragscope dataset push", () => {
  let folder: string;
  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-dataset-push-"));
  });
  after(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  test("pushes every case of the files into the embedded folder, where an evaluator finds each by id and version", async () => {
    const dataDir = path.join(folder, "store");
    const extra = path.join(folder, "extra.json");
    await writeFile(extra, JSON.stringify([{ case_id: "extra_001", case_version: "v1", dataset_id: "extra", dataset_version: "v1", input: "How long is the return window?" }]));
    const result = run(["dataset", "push", demoDataset, extra, "--data-dir", dataDir], folder);
    assert.equal(result.status, 0, result.stderr);

    // What the file says, read with a YAML parser, not with ragscope's loader.
    const document = parse(await readFile(demoDataset, "utf8")) as { dataset_id: string; dataset_version: string; cases: { case_id: string; case_version: string; input: string }[] };
    assert.match(result.stdout, new RegExp(`policy-regression\\.yaml: ${document.cases.length} cases — ${document.cases.length} new \\(stored now\\), 0 unchanged \\(already stored with the same contents\\) — in `));
    assert.match(result.stdout, /extra\.json: 1 case — 1 new \(stored now\), 0 unchanged \(already stored with the same contents\) — in /);

    // README: pushing the same files again changes nothing — and says so, case by case count.
    const repeated = run(["dataset", "push", demoDataset, extra, "--data-dir", dataDir], folder);
    assert.equal(repeated.status, 0, repeated.stderr);
    assert.match(repeated.stdout, new RegExp(`policy-regression\\.yaml: ${document.cases.length} cases — 0 new \\(stored now\\), ${document.cases.length} unchanged \\(already stored with the same contents\\) — in `));
    assert.match(repeated.stdout, /extra\.json: 1 case — 0 new \(stored now\), 1 unchanged \(already stored with the same contents\) — in /);
    // A file with a stored case and a new one: each counted as what happened to it.
    const grown = path.join(folder, "grown.json");
    await writeFile(grown, JSON.stringify([
      { case_id: "extra_001", case_version: "v1", dataset_id: "extra", dataset_version: "v1", input: "How long is the return window?" },
      { case_id: "extra_002", case_version: "v1", dataset_id: "extra", dataset_version: "v1", input: "Can I return a gift?" },
    ]));
    const mixed = run(["dataset", "push", grown, "--data-dir", dataDir], folder);
    assert.equal(mixed.status, 0, mixed.stderr);
    assert.match(mixed.stdout, /^.*grown\.json: 2 cases — 1 new \(stored now\), 1 unchanged \(already stored with the same contents\) — in /m);

    const connection = await openClickHouse(embedded(dataDir));
    try {
      const store = new ClickHouseCaseStore(connection);
      for (const expected of document.cases) {
        const found = await store.get(expected.case_id, expected.case_version);
        assert.ok(found, `case ${expected.case_id} ${expected.case_version} is in the store`);
        assert.equal(found.input, expected.input);
        // The header's dataset id and version are stored with every case.
        assert.equal(found.dataset_id, document.dataset_id);
        assert.equal(found.dataset_version, document.dataset_version);
      }
      const extraCase = await store.get("extra_001", "v1");
      assert.equal(extraCase?.input, "How long is the return window?");
      const [count] = await queryRows<{ cases: string }>(connection, "SELECT count() AS cases FROM {{database}}.eval_cases FINAL");
      assert.equal(Number(count!.cases), document.cases.length + 2);
    } finally {
      await connection.close();
    }

    // Pushing again replaces, it does not duplicate.
    assert.equal(run(["dataset", "push", extra, "--data-dir", dataDir], folder).status, 0);
    const again = await openClickHouse(embedded(dataDir));
    try {
      const [count] = await queryRows<{ cases: string }>(again, "SELECT count() AS cases FROM {{database}}.eval_cases FINAL");
      assert.equal(Number(count!.cases), document.cases.length + 2);
    } finally {
      await again.close();
    }
  });

  test("an invalid dataset: exit 1 with validate's messages, and nothing is pushed — not even the valid files", async () => {
    const dataDir = path.join(folder, "untouched");
    const valid = path.join(folder, "valid.yaml");
    const broken = path.join(folder, "broken.yaml");
    await writeFile(valid, ["dataset_id: d", "dataset_version: v1", "cases:", "  - case_id: fine", "    case_version: v1", "    input: q", ""].join("\n"));
    await writeFile(broken, ["dataset_id: d", "dataset_version: v1", "cases:", "  - case_id: bad", "    case_version: v1", "    input: q", "    gold_evidence:", "      - text: only text", ""].join("\n"));
    const result = run(["dataset", "push", valid, broken, "--data-dir", dataDir], folder);
    assert.equal(result.status, 1, result.stderr);
    assert.match(result.stderr, /cases\[0\]\.gold_evidence\[0\]\.document_id \(case_id bad\): required/);
    assert.match(result.stderr, /nothing pushed/);
    assert.doesNotMatch(result.stdout, /new \(stored now\)/);
    assert.equal(existsSync(dataDir), false, "the store was not even opened");
  });

  test("one case id and version with two different contents across files: exit 1, naming both files", async () => {
    const first = path.join(folder, "first.yaml");
    const second = path.join(folder, "second.yaml");
    await writeFile(first, ["case_id: same", "case_version: v1", "dataset_id: d", "dataset_version: v1", "input: first question", ""].join("\n"));
    await writeFile(second, ["case_id: same", "case_version: v1", "dataset_id: d", "dataset_version: v1", "input: second question", ""].join("\n"));
    const result = run(["dataset", "push", first, second, "--data-dir", path.join(folder, "conflict")], folder);
    assert.equal(result.status, 1);
    assert.match(result.stderr, /^ragscope dataset push: \S*second\.yaml: 1 problem\n\s+line 1 \(case_id same\): case_version v1 differs in input from the case of that id and version in .*first\.yaml \(line 1\); .*give the changed case a new case_version/m);
  });

  test("a case whose id and version the store holds with other content: exit 1, naming the case, its stored dataset and what differs; nothing pushed, the stored case kept", async () => {
    const dataDir = path.join(folder, "stored");
    const original = path.join(folder, "qa_err.yaml");
    const reused = path.join(folder, "qa_err3.yaml");
    const unchanged = path.join(folder, "qa_err4.yaml");
    const file = (dataset: string, risk: string, extra: string[] = []) => [`dataset_id: ${dataset}`, "dataset_version: v1", "cases:", "  - case_id: e_dup", "    case_version: v1", "    input: How long is the warranty?", `    risk_level: ${risk}`, ...extra, ""].join("\n");
    await writeFile(original, file("qa_err", "P0"));
    await writeFile(reused, file("qa_err3", "P2", ["  - case_id: e_new", "    case_version: v1", "    input: q"]));
    await writeFile(unchanged, file("qa_err4", "P0"));
    assert.equal(run(["dataset", "push", original, "--data-dir", dataDir], folder).status, 0);

    const refused = run(["dataset", "push", reused, "--data-dir", dataDir], folder);
    assert.equal(refused.status, 1, refused.stderr);
    assert.match(refused.stderr, /qa_err3\.yaml: case e_dup, case_version v1 \(dataset qa_err3 version v1\), differs in risk_level from the stored case of that id and version \(stored from dataset qa_err version v1\): .*give the changed case a new case_version/m);
    assert.match(refused.stderr, /nothing pushed/);
    assert.doesNotMatch(refused.stdout, /new \(stored now\)/);

    // The same case from another dataset is accepted, and the stored row stays the first one.
    const accepted = run(["dataset", "push", unchanged, "--data-dir", dataDir], folder);
    assert.equal(accepted.status, 0, accepted.stderr);

    const connection = await openClickHouse(embedded(dataDir));
    try {
      const store = new ClickHouseCaseStore(connection);
      const stored = await store.get("e_dup", "v1");
      assert.equal(stored?.risk_level, "P0");
      assert.equal(stored?.dataset_id, "qa_err");
      assert.equal(await store.get("e_new", "v1"), null, "nothing of the refused file was pushed");
    } finally {
      await connection.close();
    }
  });

  test("a file that cannot be read, or a bad store setting: exit 2 with what to fix", () => {
    const missing = run(["dataset", "push", path.join(folder, "absent.yaml"), "--data-dir", path.join(folder, "x")], folder);
    assert.equal(missing.status, 2);
    assert.match(missing.stderr, /absent\.yaml: dataset file not found \(looked in .*absent\.yaml\); check the path\nragscope dataset push: nothing pushed \(a file above cannot be read\)/);
    const badUrl = run(["dataset", "push", demoDataset, "--clickhouse-url", "not a url"], folder);
    assert.equal(badUrl.status, 2);
    assert.match(badUrl.stderr, /flag --clickhouse-url: must be the http:\/\/ or https:\/\/ URL of ClickHouse's HTTP interface, such as http:\/\/localhost:8123/);
  });
});
