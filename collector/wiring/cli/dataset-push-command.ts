/**
 * `ragscope dataset push FILE...`: loads the Eval Cases of dataset files into
 * the configured store — a ClickHouse server (RAGSCOPE_CLICKHOUSE_URL) or the
 * embedded folder (--data-dir) — so evaluators started without `--dataset`
 * (the Kafka roles) find them by (case_id, case_version).
 *
 * Every file is checked first, with the loader and messages of `validate`,
 * the files against each other too; a single problem pushes nothing (exit 1),
 * so a store never holds half a dataset. The store then holds the same rule
 * against what it has (contracts/eval-case-identity.ts): a case whose id and
 * version is stored with other content is refused, and nothing is pushed
 * (exit 1); one stored with the same content is left as it is. Each file's
 * line says what happened to its cases: new (stored now) and unchanged
 * (stored already with the same contents), so a second push of the same
 * files says it changed nothing. Exit 2 when a file cannot be read or the
 * store cannot be opened.
 *
 * Two pushes of one id and version with different content at the same moment
 * (two engineers or CI jobs against one ClickHouse server) can both pass that
 * check; the store then holds both contents and the push that finds so after
 * its insert exits 1, naming both datasets and the statement that removes one
 * (store/clickhouse/clickhouse-case-store.ts). Until then evaluators treat the
 * case as unknown, and a push of it is refused the same way.
 */
import { caseIdentity } from "../../../contracts/eval-case-identity.js";
import { conflictsAcrossFiles } from "../dataset/cases-across-files.js";
import { formatProblem, loadDatasetFile, type Dataset } from "../dataset/load-dataset.js";
import { openClickHouseStore } from "../../../store/clickhouse/clickhouse-store.js";
import { describeStoredCaseConflict, StoredCaseConflictError, type CaseWriteReport } from "../../../store/ports/case-store.js";
import { reportInvalidSettings, settingsForCommand, type SettingsRequest } from "./command-settings.js";
import type { FlagValues } from "./config-flags.js";
import { ExitCode } from "./exit-codes.js";
import { commandErrorLines } from "./command-error-lines.js";

type Output = { log: (line: string) => void; error: (line: string) => void };

const plural = (count: number) => `${count} case${count === 1 ? "" : "s"}`;

export async function datasetPushCommand(files: readonly string[], request: SettingsRequest, flags: FlagValues, output: Output): Promise<number> {
  // Each headline after the command's name, as eval's and gate's (README "Exit codes"); a problem's lines indented under it.
  const printErrors = (lines: readonly string[]) => {
    for (const line of commandErrorLines("dataset push", lines)) output.error(line);
  };
  const resolved = await settingsForCommand("dataset push", request, { flags });
  if (!resolved.ok) {
    reportInvalidSettings("dataset push", resolved.error, output);
    return ExitCode.undecided;
  }
  const results = [];
  for (const file of files) results.push(await loadDatasetFile(file));
  // A file that cannot be read is a usage error (exit 2), said before any dataset's problems: nothing is pushed either way.
  const unreadable = results.flatMap((result) => (!result.ok && result.error.unreadable !== undefined ? [result.error.unreadable] : []));
  if (unreadable.length > 0) {
    printErrors([...unreadable, "nothing pushed (a file above cannot be read)"]);
    return ExitCode.undecided;
  }

  const loaded: Dataset[] = [];
  let problems = 0;
  const reportProblems = (file: string, lines: readonly string[]) => {
    problems += lines.length;
    printErrors([`${file}: ${lines.length} problem${lines.length === 1 ? "" : "s"}`, ...lines.map((line) => `  ${line}`)]);
  };
  for (const [index, result] of results.entries()) {
    if (result.ok) loaded.push(result.value);
    else reportProblems(files[index]!, result.error.problems.map(formatProblem));
  }
  // The loader rejects duplicates inside a file; across files, one (case_id, case_version) must mean one case.
  for (const [index, found] of conflictsAcrossFiles(loaded)) reportProblems(loaded[index]!.file, found.map(formatProblem));
  if (problems > 0) {
    output.error(`ragscope dataset push: nothing pushed; fix the ${problems === 1 ? "problem" : `${problems} problems`} above (ragscope validate shows the same)`);
    return ExitCode.checkFailed;
  }

  // A new store gets its tables; an existing one is migrated like at any collector start.
  const store = await openClickHouseStore(resolved.value.settings.clickhouse);
  let written: CaseWriteReport;
  try {
    // One call for every file: the store refuses it whole when a case conflicts with a stored one, so nothing is half pushed.
    written = await store.cases.put(loaded.flatMap((dataset) => dataset.cases));
  } catch (error) {
    if (!(error instanceof StoredCaseConflictError)) throw error;
    const fileOf = new Map<string, string>();
    for (const dataset of loaded) for (const item of dataset.cases) if (!fileOf.has(caseIdentity(item))) fileOf.set(caseIdentity(item), dataset.file);
    for (const conflict of error.conflicts) output.error(`ragscope dataset push: ${fileOf.get(caseIdentity({ case_id: conflict.caseId, case_version: conflict.caseVersion })) ?? "?"}: ${describeStoredCaseConflict(conflict)}`);
    const count = error.conflicts.length === 1 ? "1 case" : `${error.conflicts.length} cases`;
    if (error.race === "during-this-call") output.error(`ragscope dataset push: ${count} stored with two contents in ${store.describe()} by a push that ran at the same time (above); the files' other cases were pushed`);
    else if (error.race === "found") output.error(`ragscope dataset push: nothing pushed; ${count} ${error.conflicts.length === 1 ? "is" : "are"} stored with two contents in ${store.describe()} (above)`);
    else output.error(`ragscope dataset push: nothing pushed; ${error.conflicts.length === 1 ? "1 case differs" : `${error.conflicts.length} cases differ`} from the cases stored in ${store.describe()}`);
    return ExitCode.checkFailed;
  } finally {
    await store.close();
  }
  // A case given in two files (the same contents: checked above) is new in the first file only.
  const counted = new Set<string>();
  for (const dataset of loaded) {
    let added = 0;
    for (const item of dataset.cases) {
      const identity = caseIdentity(item);
      if (written.stored.has(identity) && !counted.has(identity)) added += 1;
      counted.add(identity);
    }
    output.log(`${dataset.file}: ${plural(dataset.cases.length)} — ${added} new (stored now), ${dataset.cases.length - added} unchanged (already stored with the same contents) — in ${store.describe()}`);
  }
  return ExitCode.ok;
}
