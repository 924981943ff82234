/**
 * Replays Eval Cases through the instrumented assistant, one request per case,
 * each linked to run_id / case_id / case_version so the collector can rebuild
 * its Case Result (ragscope demo runs this as a separate process).
 *
 *   npx tsx examples/policy-assistant/run-cases.ts examples/datasets/policy-regression.yaml [run-id]
 *   npx tsx examples/policy-assistant/run-cases.ts cases.json
 *   npx tsx examples/policy-assistant/run-cases.ts --offline examples/datasets/policy-regression.yaml
 *
 * The file is a dataset `{ dataset_id, dataset_version, cases }` (YAML or JSON)
 * or `{ runId, cases }` as ragscope demo writes it; a case needs case_id,
 * case_version, dataset_id, dataset_version (or the header's) and input, and
 * may carry `context` (tenant_id, principal_id, principal_groups). The run id
 * is the second argument, else the file's runId, else local-<dataset>-<version>.
 * Spans go to RAGSCOPE_ENDPOINT (default http://127.0.0.1:4318); --offline
 * registers no exporter and only prints the answers. The exit code is 1 when
 * spans could not be delivered: a run without its traces is not a run.
 */
import { readFile } from "node:fs/promises";
import { parse } from "yaml";
import { setupRagscope } from "../../instrumentation/index.js";
import { parseCaseFile } from "./case-file.js";
import { replayForCase } from "./case-request.js";
import { createPolicyAssistant } from "./create-policy-assistant.js";

async function main(argumentsList: string[]): Promise<number> {
  const offline = argumentsList.includes("--offline");
  const [file, runIdArgument] = argumentsList.filter((argument) => argument !== "--offline");
  if (file === undefined) {
    console.error("usage: tsx examples/policy-assistant/run-cases.ts [--offline] <dataset.yaml | cases.json> [run-id]");
    return 2;
  }
  let data: unknown;
  try {
    data = parse(await readFile(file, "utf8"));
  } catch (error) {
    console.error(`${file}: ${(error as Error).message}`);
    return 1;
  }
  const caseFile = parseCaseFile(data, runIdArgument);
  if (!caseFile.ok) {
    for (const problem of caseFile.error) console.error(`${file}: ${problem}`);
    return 1;
  }
  const ragscope = offline ? null : setupRagscope({ serviceName: process.env.OTEL_SERVICE_NAME ?? "policy-assistant" });
  const assistant = createPolicyAssistant();
  for (const item of caseFile.value.cases) {
    const replay = replayForCase(item, caseFile.value.runId);
    const result = await assistant.answer(replay.question, replay.request);
    console.log(`${item.case_id}@${item.case_version}: ${result.answer} [${result.citations.join(", ")}]`);
  }
  if (ragscope === null) return 0;
  try {
    await ragscope.shutdown();
  } catch (error) {
    console.error(`could not deliver the run's spans to the collector: ${(error as Error).message}`);
    return 1;
  }
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
