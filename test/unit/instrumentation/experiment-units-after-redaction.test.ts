/**
 * An A/B experiment whose user ids are e-mail addresses, as a user meets it:
 * the SDK with default redaction exports to the embedded collector, and the
 * experiment report is built from the stored Case Results. Twelve users are
 * twelve units — not one per arm (every id redacted to the same
 * `[REDACTED:email]`), and no user is reported in two variants.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { caseResult as caseResultSchema } from "../../../contracts/case-result.js";
import { buildExperimentReport } from "../../../evaluators/experiments/experiment-report.js";
import { assignVariant, setupRagscope, traceRequest } from "../../../instrumentation/index.js";
import { startCollectorForTests, type CollectorForTests } from "../../support/embedded-collector-for-tests.js";
import { queryRows } from "../../support/temporary-store.js";

const USERS = 12;
const variants = [{ name: "control", weight: 1 }, { name: "treatment", weight: 1 }];

describe("experiment units after default redaction", () => {
  let running: CollectorForTests;
  before(async () => {
    running = await startCollectorForTests();
  });
  after(async () => running.stop());

  test("twelve users with e-mail ids are twelve units, none of them in two variants", async () => {
    const handle = setupRagscope({ endpoint: running.collector.receiverUrl, protocol: "http/json", serviceName: "experiment-units", flushOnExit: false, exportInWorker: false });
    const expected = new Map<string, number>();
    try {
      for (let index = 0; index < USERS; index += 1) {
        const userId = `user${index}@example.com`;
        const variant = assignVariant({ experimentId: "prompt-v2", unitId: userId, variants });
        assert.ok(variant.ok);
        expected.set(variant.value, (expected.get(variant.value) ?? 0) + 1);
        // Two requests per user, in one session: units are users, not requests.
        for (const turn of [1, 2]) {
          await traceRequest({ query: `question ${turn}`, userId, sessionId: `session-${userId}`, experimentId: "prompt-v2", experimentVariant: variant.value }, () => "answer");
        }
      }
      await handle.forceFlush();
    } finally {
      await handle.shutdown();
    }
    assert.ok(await running.collector.waitUntilIdle(20_000), "the collector did not become idle");
    const rows = await queryRows<{ payload: string }>(running.collector.store.connection, "SELECT payload FROM {{database}}.case_results FINAL");
    const results = rows.map((row) => caseResultSchema.parse(JSON.parse(row.payload)));
    assert.equal(results.length, USERS * 2);
    const report = buildExperimentReport(results, [], { experimentId: "prompt-v2", now: Date.now() });
    const units = Object.fromEntries(report.traffic.map((traffic) => [traffic.variant, traffic.units]));
    assert.deepEqual(units, Object.fromEntries(expected), `units per arm: ${JSON.stringify(report.traffic)}`);
    assert.equal(report.unitsInSeveralVariants, 0, `no user saw two variants: ${report.warnings.join("; ")}`);
  });
});
