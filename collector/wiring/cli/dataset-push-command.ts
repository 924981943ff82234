/**
 * `ragscope dataset push FILE...`: loads the Eval Cases of dataset files into
 * the configured store — a ClickHouse server (RAGSCOPE_CLICKHOUSE_URL) or the
 * embedded folder (--data-dir) — so evaluators started without `--dataset`
 * (the Kafka roles) find them by (case_id, case_version).
 *
 * Every file is checked first, with the loader and messages of `validate`; a
 * single problem pushes nothing (exit 1), so a store never holds half a
 * dataset. Exit 2 when a file cannot be read or the store cannot be opened.
 */
import { access, constants } from "node:fs/promises";
import type { EvalCase } from "../../../contracts/eval-case.js";
import { formatProblem, loadDatasetFile } from "../dataset/load-dataset.js";
import { openClickHouseStore } from "../../../store/clickhouse/clickhouse-store.js";
import { reportInvalidSettings, settingsForCommand, type SettingsRequest } from "./command-settings.js";
import type { FlagValues } from "./config-flags.js";
import { ExitCode } from "./exit-codes.js";

type Output = { log: (line: string) => void; error: (line: string) => void };

const plural = (count: number) => `${count} case${count === 1 ? "" : "s"}`;

export async function datasetPushCommand(files: readonly string[], request: SettingsRequest, flags: FlagValues, output: Output): Promise<number> {
  const resolved = await settingsForCommand("dataset push", request, { flags });
  if (!resolved.ok) {
    reportInvalidSettings("dataset push", resolved.error, output);
    return ExitCode.undecided;
  }
  for (const file of files) {
    try {
      await access(file, constants.R_OK);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      output.error(`ragscope dataset push: cannot read ${file} (${code === "ENOENT" ? "file not found" : (code ?? String(error))}); check the path`);
      return ExitCode.undecided;
    }
  }

  const loaded: { file: string; cases: EvalCase[] }[] = [];
  const firstSeen = new Map<string, { file: string; payload: string }>();
  let problems = 0;
  for (const file of files) {
    const dataset = await loadDatasetFile(file);
    if (!dataset.ok) {
      problems += dataset.error.problems.length;
      output.error(`${file}: ${dataset.error.problems.length} problem${dataset.error.problems.length === 1 ? "" : "s"}`);
      for (const problem of dataset.error.problems) output.error(`  ${formatProblem(problem)}`);
      continue;
    }
    // The loader rejects duplicates inside a file; across files, one (case_id, case_version) must mean one case.
    for (const [index, item] of dataset.value.cases.entries()) {
      const key = `${item.case_id}\u0000${item.case_version}`;
      const payload = JSON.stringify(item);
      const seen = firstSeen.get(key);
      if (seen === undefined) firstSeen.set(key, { file, payload });
      else if (seen.payload !== payload) {
        problems += 1;
        output.error(`${file}: case ${index + 1} (case_id ${item.case_id}, case_version ${item.case_version}) differs from the case of that id and version in ${seen.file}; give the changed case a new case_version`);
      }
    }
    loaded.push({ file, cases: dataset.value.cases });
  }
  if (problems > 0) {
    output.error(`ragscope dataset push: nothing pushed; fix the ${problems === 1 ? "problem" : `${problems} problems`} above (ragscope validate shows the same)`);
    return ExitCode.checkFailed;
  }

  // A new store gets its tables; an existing one is migrated like at any collector start.
  const store = await openClickHouseStore(resolved.value.settings.clickhouse);
  try {
    for (const dataset of loaded) {
      await store.cases.put(dataset.cases);
      output.log(`${dataset.file}: ${plural(dataset.cases.length)} pushed to ${store.describe()}`);
    }
  } finally {
    await store.close();
  }
  return ExitCode.ok;
}
