/**
 * `ragscope validate FILE... [--stats]`: checks dataset files against the Eval
 * Case schema, in either format (the Eval Case template, or the seed's simple
 * format of 004 §二.1) and says which it read. Prints every problem with its
 * path and case id; exits 1 when any file has a problem, 2 when a file cannot
 * be read at all (README "Exit codes"), 0 when all are valid.
 * `--stats` adds the mix of case categories and splits against the seed's
 * recommended 50/20/10/10/10.
 */
import { datasetMix, formatMix } from "../dataset/dataset-mix.js";
import { formatProblem, loadDatasetFile, type DatasetFormat } from "../dataset/load-dataset.js";

const formatNames: Record<DatasetFormat, string> = {
  eval_case: "Eval Case format",
  simple: "simple format (seed 004 §二.1)",
  mixed: "Eval Case and simple formats mixed",
};

export async function validateCommand(files: string[], output: { log: (line: string) => void; error: (line: string) => void }, options: { stats?: boolean } = {}): Promise<number> {
  let problems = 0;
  let unreadable = false;
  for (const file of files) {
    const loaded = await loadDatasetFile(file);
    if (loaded.ok) {
      output.log(`${file}: valid — ${loaded.value.cases.length} case${loaded.value.cases.length === 1 ? "" : "s"}, ${formatNames[loaded.value.format]}`);
      if (options.stats) for (const line of formatMix(datasetMix(loaded.value.cases))) output.log(line);
      continue;
    }
    problems += loaded.error.problems.length;
    unreadable ||= loaded.error.unreadable === true;
    output.error(`${file}: ${loaded.error.problems.length} problem${loaded.error.problems.length === 1 ? "" : "s"}`);
    for (const problem of loaded.error.problems) output.error(`  ${formatProblem(problem)}`);
  }
  return unreadable ? 2 : problems === 0 ? 0 : 1;
}
