/**
 * `ragscope validate FILE...`: checks dataset files against the Eval Case
 * schema. Prints every problem with its path and case id; exits 1 when any
 * file has a problem, 0 when all are valid.
 */
import { formatProblem, loadDatasetFile } from "../dataset/load-dataset.js";

export async function validateCommand(files: string[], output: { log: (line: string) => void; error: (line: string) => void }): Promise<number> {
  let problems = 0;
  for (const file of files) {
    const loaded = await loadDatasetFile(file);
    if (loaded.ok) {
      output.log(`${file}: valid — ${loaded.value.cases.length} case${loaded.value.cases.length === 1 ? "" : "s"}`);
      continue;
    }
    problems += loaded.error.problems.length;
    output.error(`${file}: ${loaded.error.problems.length} problem${loaded.error.problems.length === 1 ? "" : "s"}`);
    for (const problem of loaded.error.problems) output.error(`  ${formatProblem(problem)}`);
  }
  return problems === 0 ? 0 : 1;
}
