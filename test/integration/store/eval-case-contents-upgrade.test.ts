/**
 * Migration 0030 (the content's digest ends eval_cases' sorting key, so two
 * contents of one case id and version stay two rows) on a store of the
 * release before it, with the cases that release stored: rows without a
 * digest, written as its `put` wrote them. After the upgrade every stored case
 * is found as it was, pushing it again adds no row, other content of its id
 * and version is still refused, and a merge keeps the stored rows.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import type { EvalCase } from "../../../contracts/eval-case.js";
import { ClickHouseCaseStore } from "../../../store/clickhouse/clickhouse-case-store.js";
import { runMigrations } from "../../../store/clickhouse/run-migrations.js";
import { StoredCaseConflictError } from "../../../store/ports/case-store.js";
import { buildCase } from "../../support/case-results.js";
import { queryRows, temporaryStore, type TemporaryStore } from "../../support/temporary-store.js";
import { migrationsThrough } from "../../support/previous-release.js";

describe("upgrading a store of the release before migration 0030", () => {
  let earlier: TemporaryStore;
  let earlierRelease: string;
  const stored: EvalCase[] = [
    buildCase({ case_id: "warranty", case_version: "v1", dataset_id: "qa", dataset_version: "1", input: "How long is the warranty?" }),
    buildCase({ case_id: "warranty", case_version: "v2", dataset_id: "qa", dataset_version: "2", input: "How long is the extended warranty?" }),
    buildCase({ case_id: "returns", case_version: "v1", dataset_id: "qa", dataset_version: "1", input: "Can I return an opened box?" }),
  ];

  before(async () => {
    earlierRelease = await mkdtemp(path.join(os.tmpdir(), "ragscope-release-0029-migrations-"));
    await migrationsThrough(29, earlierRelease);
    earlier = await temporaryStore({ migrate: false });
    await runMigrations(earlier.connection, earlierRelease);
    // The rows as that release's put inserted them (its columns, its version: the insert's time).
    await earlier.connection.client.insert({
      table: `${earlier.connection.database}.eval_cases`,
      values: stored.map((item) => ({ case_id: item.case_id, case_version: item.case_version, dataset_id: item.dataset_id, dataset_version: item.dataset_version, payload: JSON.stringify(item), version: 1_780_000_000_000 })),
      format: "JSONEachRow",
    });
  });
  after(async () => {
    await earlier?.cleanup();
    await rm(earlierRelease, { recursive: true, force: true });
  });

  test("finds every stored case, adds no row for the same case, refuses other content, and a merge keeps the rows", async () => {
    const { applied } = await runMigrations(earlier.connection);
    assert.ok(applied.some((name) => name.startsWith("0030_")), applied.join(", "));
    const cases = new ClickHouseCaseStore(earlier.connection);
    for (const item of stored) assert.deepEqual(await cases.get(item.case_id, item.case_version), item);

    // The same case kept into the next dataset version: one case, stored once.
    await new ClickHouseCaseStore(earlier.connection).put([{ ...stored[0]!, dataset_version: "3" }]);
    const rows = () => queryRows<{ case_id: string; case_version: string; content_digest: string }>(earlier.connection, "SELECT case_id, case_version, content_digest FROM {{database}}.eval_cases ORDER BY case_id, case_version");
    assert.deepEqual(
      (await rows()).map((row) => `${row.case_id} ${row.case_version} ${row.content_digest}`),
      ["returns v1 ", "warranty v1 ", "warranty v2 "],
    );

    await assert.rejects(new ClickHouseCaseStore(earlier.connection).put([{ ...stored[2]!, input: "Can I return a used box?" }]), (error: unknown) => {
      assert.ok(error instanceof StoredCaseConflictError);
      assert.equal(error.race, "none");
      assert.deepEqual(error.conflicts.map((conflict) => [conflict.caseId, conflict.fields]), [["returns", ["input"]]]);
      return true;
    });

    await earlier.connection.client.command({ query: `OPTIMIZE TABLE ${earlier.connection.database}.eval_cases FINAL` });
    assert.equal((await rows()).length, 3);
    for (const item of stored) assert.deepEqual(await new ClickHouseCaseStore(earlier.connection).get(item.case_id, item.case_version), item);
  });
});
