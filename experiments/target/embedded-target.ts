/**
 * The collector embedded in this process (no server to start): its receiver on
 * a free port, its store read directly. A case is evaluated once the store
 * holds its Case Result (the sink writes a result's Evaluation Results before
 * its Case Result); after that the collector is waited on until nothing is
 * queued or open (late judge work).
 */
import { unfinishedRunProblem } from "../run-completion.js";
import { sinkRetryPolicy } from "../../collector/wiring/config/collector-config.js";
import { collectorSettings, judgeEndpointSettings, onlineSettings, type Settings } from "../../collector/wiring/config/settings-schema.js";
import { onlineStageFactory } from "../../collector/wiring/online/online-stage-factory.js";
import { startEmbeddedCollector } from "../../collector/wiring/run/embedded-collector.js";
import { NO_TENANT } from "../../store/ports/run-lineage-sink.js";
import { describeScope, type TenantScope } from "../../store/ports/tenant-scope.js";
import { caseKey, type CollectorTarget, type MissingCases } from "./collector-target.js";
import type { AttributionOptions } from "../../evaluators/root-cause/index.js";

const POLL_MS = 250;

/**
 * @param scope whose results the run reads back — its own cases and the
 *   baseline's (`eval --tenant`: another tenant's run reads as not stored).
 * @param attribution for the root causes of failed cases, in the rule stage and again when judge results arrive: the
 *   corpus index of `eval --corpus` (DATA_MISSING).
 */
export async function startEmbeddedTarget(settings: Settings, scope: TenantScope = "all", attribution: AttributionOptions = {}): Promise<CollectorTarget> {
  const config = collectorSettings(settings);
  const online = onlineStageFactory(onlineSettings(settings), judgeEndpointSettings(settings), sinkRetryPolicy(config), undefined, attribution);
  const collector = await startEmbeddedCollector(config, { online: online.online, attribution });
  const { reader, traces } = collector.store.scoped(scope);
  let unfinished: string | null = null;
  return {
    receiverUrl: collector.receiverUrl,
    judgeDescription: online.judgeDescription,
    describe: () => (scope === "all" ? collector.store.describe() : `${collector.store.describe()}, ${describeScope(scope)} only`),
    putCases: async (cases) => {
      await collector.store.cases.put([...cases]);
    },
    async waitForCases(runIds, cases, deadline) {
      // A run id used before in this folder: its old rows count here, and the wait until the collector is idle below
      // is what makes sure the new ones are written (everything this process sent is then evaluated and stored).
      let incomplete = false;
      for (const runId of runIds) {
        while ((await reader.countCaseResults(runId)) < cases.length && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
      const missing: MissingCases[] = [];
      for (const runId of runIds) {
        const stored = new Set((await reader.loadRunCases(runId)).map((item) => caseKey(item.caseResult)));
        const absent = cases.map(caseKey).filter((key) => !stored.has(key));
        if (absent.length > 0) {
          incomplete = true;
          missing.push({ runId, cases: absent });
        }
      }
      if (incomplete) await collector.flush();
      const waitedMs = Math.max(1000, deadline - Date.now());
      const idle = await collector.waitUntilIdle(waitedMs);
      unfinished = idle ? null : `judge or embedding work was still queued or running when the wait for evaluation ended`;
      return missing;
    },
    unfinishedWork: () => unfinished,
    loadRunCases: (runId) => reader.loadRunCases(runId),
    countRunTenants: (runId) => reader.countRunTenants(runId),
    async storedRun(runId) {
      const [cases, lineage] = await Promise.all([reader.countCaseResults(runId), reader.readRun(runId)]);
      if (cases === 0 && lineage === null) return null;
      if (lineage !== null) return { cases, since: lineage.started_at, recorded: true, unfinished: unfinishedRunProblem(runId, lineage, cases) };
      const newest = await traces.listTraces({ runId }, { after: null, limit: 1 });
      return { cases, since: newest.traces[0]?.startedAt ?? null, recorded: false, unfinished: null };
    },
    async recordRun(lineage) {
      // `eval --tenant`: the run is that tenant's, read by its readers only (store/ports/run-lineage-sink.ts).
      await collector.store.runs.record(lineage, scope === "all" ? NO_TENANT : scope[0]);
      return null;
    },
    close: async () => {
      // A run's results are read before the stop: anything the store refused is already a missing result of the run.
      await collector.close();
    },
  };
}
