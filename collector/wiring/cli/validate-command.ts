/**
 * `ragscope validate FILE... [--stats]`: checks dataset files against the Eval
 * Case schema, in either format (the Eval Case template, or the seed's simple
 * format of 004 §二.1) and says which it read. Prints every problem with its
 * path and case id; exits 1 when any file has a problem, 2 when a file cannot
 * be read at all (README "Exit codes"), 0 when all are valid.
 * Files given together are also checked against each other as `dataset push`
 * and `eval` check them against the store: a case id and version that two
 * files give different contents is a problem of the later file.
 * `--stats` adds the mix of case categories and splits against the seed's
 * recommended 50/20/10/10/10.
 */
import type { EvalCase } from "../../../contracts/eval-case.js";
import { conflictsAcrossFiles } from "../dataset/cases-across-files.js";
import { datasetMix, formatMix } from "../dataset/dataset-mix.js";
import { formatProblem, loadDatasetFile, type Dataset, type DatasetFormat, type DatasetProblem } from "../dataset/load-dataset.js";

const formatNames: Record<DatasetFormat, string> = {
  eval_case: "Eval Case format",
  simple: "simple format (seed 004 §二.1)",
  mixed: "Eval Case and simple formats mixed",
};

/** Refusals shown by id up to this many; the rest counted. */
const REFUSALS_NAMED = 10;

export async function validateCommand(files: string[], output: { log: (line: string) => void; error: (line: string) => void }, options: { stats?: boolean } = {}): Promise<number> {
  let problems = 0;
  let unreadable = false;
  const loaded: Awaited<ReturnType<typeof loadDatasetFile>>[] = [];
  for (const file of files) loaded.push(await loadDatasetFile(file));
  const datasets = loaded.flatMap((result) => (result.ok ? [result.value] : []));
  const acrossFiles = conflictsAcrossFiles(datasets);
  const reportProblems = (file: string, found: readonly DatasetProblem[]) => {
    problems += found.length;
    output.error(`${file}: ${found.length} problem${found.length === 1 ? "" : "s"}`);
    for (const problem of found) output.error(`  ${formatProblem(problem)}`);
  };
  for (const result of loaded) {
    if (!result.ok) {
      if (result.error.unreadable !== undefined) {
        unreadable = true;
        output.error(result.error.unreadable);
      } else reportProblems(result.error.file, result.error.problems);
      continue;
    }
    const conflicts = acrossFiles.get(datasets.indexOf(result.value));
    if (conflicts !== undefined) {
      reportProblems(result.value.file, conflicts);
      continue;
    }
    logValid(result.value, output, options);
  }
  return unreadable ? 2 : problems === 0 ? 0 : 1;
}

function logValid(dataset: Dataset, output: { log: (line: string) => void }, options: { stats?: boolean }): void {
  output.log(`${dataset.file}: valid — ${dataset.cases.length} case${dataset.cases.length === 1 ? "" : "s"}, ${formatNames[dataset.format]}`);
  // Said, so that a case read as expecting a refusal (a simple-format question_type, or answerable: false) is seen before a run judges it so.
  const refusals = dataset.cases.filter((item: EvalCase) => !item.answerable).map((item) => item.case_id);
  if (refusals.length > 0) {
    const named = refusals.length <= REFUSALS_NAMED ? refusals.join(", ") : `${refusals.slice(0, REFUSALS_NAMED).join(", ")} and ${refusals.length - REFUSALS_NAMED} more`;
    output.log(`  ${refusals.length} case${refusals.length === 1 ? " expects" : "s expect"} a refusal (answerable: false): ${named}`);
  }
  if (options.stats) for (const line of formatMix(datasetMix(dataset.cases))) output.log(line);
}
