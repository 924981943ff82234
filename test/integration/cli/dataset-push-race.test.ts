/**
 * Two `ragscope dataset push` of one case id and version with different
 * content, at the same time, against one ClickHouse server — two engineers or
 * two CI jobs sharing a collector's store. (The embedded store cannot be
 * shared: its folder admits one process at a time, so the race is a server's.)
 * The server is the ClickHouse engine behind its HTTP interface
 * (support/clickhouse-http-facade.ts); the pushes are the built CLI as
 * subprocesses.
 *
 * The interleaving is forced, not waited for: the facade holds each push's
 * INSERT into eval_cases until both pushes have sent theirs, so both checks
 * ran before either insert — the race. Then the first insert goes through and
 * its push ends; only then does the second insert run. The first push cannot
 * see the second content and succeeds; the second must see both and fail,
 * readers must not pick either, and the statement the message gives must
 * leave one.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { openClickHouse, type ClickHouseConnection } from "../../../store/clickhouse/clickhouse-connection.js";
import { ClickHouseCaseStore } from "../../../store/clickhouse/clickhouse-case-store.js";
import { startClickHouseHttpFacade, type ClickHouseHttpFacade } from "../../support/clickhouse-http-facade.js";
import { queryRows } from "../../support/temporary-store.js";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const ragscope = path.join(projectRoot, "bin/ragscope.js");

interface Finished {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** The CLI as a subprocess, asynchronously: the facade answering it runs in this process. */
function runRagscope(args: string[], cwd: string): Promise<Finished> {
  const child = spawn(process.execPath, [ragscope, ...args], { cwd, env: { ...process.env, RAGSCOPE_CLICKHOUSE_URL: "", RAGSCOPE_DATA_DIR: "", RAGSCOPE_CONFIG: "" }, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  return new Promise((resolve) => child.once("close", (status) => resolve({ status, stdout, stderr })));
}

/** A held statement: which dataset's rows it inserts, and how to let it run. */
interface HeldInsert {
  dataset: string;
  release: () => void;
}

const datasetFile = (dataset: string, input: string) =>
  [`dataset_id: ${dataset}`, "dataset_version: v1", "cases:", "  - case_id: race_1", "    case_version: v1", `    input: ${input}`, `  - case_id: only_${dataset}`, "    case_version: v1", "    input: a case nobody else pushes", ""].join("\n");

describe("two `ragscope dataset push` of one case id and version with different content at the same time, on one ClickHouse server", () => {
  let folder: string;
  let facade: ClickHouseHttpFacade;
  let reader: ClickHouseConnection;
  /** Filled while the gate is on: the inserts into eval_cases held so far. */
  let held: HeldInsert[] = [];
  let gateOn = false;
  let bothHeld: () => void = () => {};

  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-dataset-push-race-"));
    facade = await startClickHouseHttpFacade({
      dataPath: path.join(folder, "server"),
      beforeQuery: async (sql) => {
        if (!gateOn || !/^INSERT INTO \S*eval_cases\b/.test(sql)) return;
        const dataset = /"dataset_id":"(team_[a-z]+)"/.exec(sql)?.[1] ?? "?";
        await new Promise<void>((release) => {
          held.push({ dataset, release });
          if (held.length === 2) bothHeld();
        });
      },
    });
    reader = await openClickHouse({ url: facade.url, username: "default", password: "", database: "ragscope", dataPath: "/unused" });
  });
  after(async () => {
    await reader?.close();
    await facade?.close();
    await rm(folder, { recursive: true, force: true });
  });

  test("the push whose insert lands second fails naming both datasets; readers treat the case as unknown; the printed statement leaves one content", async () => {
    // The schema first, so that both pushes only check and insert.
    const migrated = await runRagscope(["migrate", "--clickhouse-url", facade.url], folder);
    assert.equal(migrated.status, 0, migrated.stderr);
    const files = { team_a: path.join(folder, "team-a.yaml"), team_b: path.join(folder, "team-b.yaml") };
    await writeFile(files.team_a, datasetFile("team_a", "How long is the warranty?"));
    await writeFile(files.team_b, datasetFile("team_b", "How long is the return window?"));

    gateOn = true;
    const waitBoth = new Promise<void>((resolve) => (bothHeld = resolve));
    const pushes = { team_a: runRagscope(["dataset", "push", files.team_a, "--clickhouse-url", facade.url], folder), team_b: runRagscope(["dataset", "push", files.team_b, "--clickhouse-url", facade.url], folder) };
    // Both checks have run (each push inserts only after its check found nothing): the race.
    await waitBoth;
    const [first, second] = held as [HeldInsert, HeldInsert];
    assert.notEqual(first.dataset, second.dataset);
    first.release();
    const firstDone = await pushes[first.dataset as keyof typeof pushes];
    second.release();
    const secondDone = await pushes[second.dataset as keyof typeof pushes];
    gateOn = false;

    assert.equal(firstDone.status, 0, firstDone.stderr);
    assert.match(firstDone.stdout, /2 cases — 2 new \(stored now\), 0 unchanged/);
    assert.equal(secondDone.status, 1, `the push whose insert landed second must fail:\n${secondDone.stdout}${secondDone.stderr}`);
    const secondFile = path.basename(files[second.dataset as keyof typeof files]);
    assert.match(
      secondDone.stderr,
      new RegExp(`${secondFile}: case race_1, case_version v1 \\(dataset ${second.dataset} version v1\\) is stored with two contents: this one and one from dataset ${first.dataset} version v1, differing in input, stored by two pushes at the same time`),
    );
    assert.match(secondDone.stderr, /Evaluators treat the case as unknown \(no gold data\) until one content is removed/);
    assert.match(secondDone.stderr, /ragscope dataset push: 1 case stored with two contents in .* by a push that ran at the same time \(above\); the files' other cases were pushed/);

    // Both contents are stored, and no merge may fold them into one.
    await reader.client.command({ query: "OPTIMIZE TABLE ragscope.eval_cases FINAL" });
    const rows = await queryRows<{ dataset_id: string }>(reader, "SELECT dataset_id FROM {{database}}.eval_cases FINAL WHERE case_id = 'race_1' ORDER BY dataset_id");
    assert.deepEqual(rows.map((row) => row.dataset_id), ["team_a", "team_b"]);

    // An evaluator's lookup does not pick one: the case is unknown, and counted as stored twice.
    const cases = new ClickHouseCaseStore(reader);
    assert.equal(await cases.get("race_1", "v1"), null);
    assert.equal(cases.counters.conflictingCases, 1);
    assert.equal((await cases.get(`only_${second.dataset}`, "v1"))?.input, "a case nobody else pushes", "the second push's other case was stored");

    // Pushing either file again is refused while both contents are stored.
    const again = await runRagscope(["dataset", "push", files[first.dataset as keyof typeof files], "--clickhouse-url", facade.url], folder);
    assert.equal(again.status, 1, again.stderr);
    assert.match(again.stderr, /nothing pushed; 1 case is stored with two contents/);

    // The operator keeps the first push's content with the statement the second push printed for its own.
    const statement = /this one with (ALTER TABLE .*? SETTINGS mutations_sync = 1)/.exec(secondDone.stderr)?.[1];
    assert.ok(statement, secondDone.stderr);
    await reader.client.command({ query: statement });
    const kept = await new ClickHouseCaseStore(reader).get("race_1", "v1");
    assert.equal(kept?.dataset_id, first.dataset);
    const pushedAgain = await runRagscope(["dataset", "push", files[first.dataset as keyof typeof files], "--clickhouse-url", facade.url], folder);
    assert.equal(pushedAgain.status, 0, pushedAgain.stderr);
  });
});
