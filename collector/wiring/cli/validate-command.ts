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
 * recommended 50/20/10/10/10; with two or more valid files, also the mix of
 * all their cases together, after the files' own (a case given in two files
 * is one case, counted once).
 */
import type { EvalCase } from "../../../contracts/eval-case.js";
import { caseIdentity } from "../../../contracts/eval-case-identity.js";
import { caseGoldEvidence } from "../../../evaluators/evidence/case-gold-evidence.js";
import { conflictsAcrossFiles } from "../dataset/cases-across-files.js";
import { datasetMix, formatMix } from "../dataset/dataset-mix.js";
import { formatProblem, loadDatasetFile, type Dataset, type DatasetFormat, type DatasetProblem } from "../dataset/load-dataset.js";
import { commandErrorLines } from "./command-error-lines.js";

const formatNames: Record<DatasetFormat, string> = {
  eval_case: "Eval Case format",
  simple: "simple format (seed 004 §二.1)",
  mixed: "Eval Case and simple formats mixed",
};

/** Refusals shown by id up to this many; the rest counted. */
const REFUSALS_NAMED = 10;

export async function validateCommand(files: string[], output: { log: (line: string) => void; error: (line: string) => void }, options: { stats?: boolean } = {}): Promise<number> {
  // Each headline after the command's name, as eval's and gate's (README "Exit codes"); a problem's lines indented under it.
  const printErrors = (lines: readonly string[]) => {
    for (const line of commandErrorLines("validate", lines)) output.error(line);
  };
  let problems = 0;
  let unreadable = false;
  const valid: Dataset[] = [];
  const loaded: Awaited<ReturnType<typeof loadDatasetFile>>[] = [];
  for (const file of files) loaded.push(await loadDatasetFile(file));
  const datasets = loaded.flatMap((result) => (result.ok ? [result.value] : []));
  const acrossFiles = conflictsAcrossFiles(datasets);
  const reportProblems = (file: string, found: readonly DatasetProblem[]) => {
    problems += found.length;
    printErrors([`${file}: ${found.length} problem${found.length === 1 ? "" : "s"}`, ...found.map((problem) => `  ${formatProblem(problem)}`)]);
  };
  for (const result of loaded) {
    if (!result.ok) {
      if (result.error.unreadable !== undefined) {
        unreadable = true;
        printErrors([result.error.unreadable]);
      } else reportProblems(result.error.file, result.error.problems);
      continue;
    }
    const conflicts = acrossFiles.get(datasets.indexOf(result.value));
    if (conflicts !== undefined) {
      reportProblems(result.value.file, conflicts);
      continue;
    }
    logValid(result.value, output, options);
    valid.push(result.value);
  }
  if (options.stats && valid.length > 1) logTotal(valid, files.length, output);
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
  // Answerable cases that name relevant documents only (the simple format's relevant_document_ids, with no chunk ids
  // and no evidence) are scored per document by the retrieval metrics, and by no metric that needs the evidence itself
  // (evaluators/evidence/case-gold-evidence.ts): said before a run, so their not-applicable context and citation
  // metrics are expected.
  const documentsOnly = dataset.cases.filter((item: EvalCase) => caseGoldEvidence(item).documentsOnly).map((item) => item.case_id);
  if (documentsOnly.length > 0) {
    const named = documentsOnly.length <= REFUSALS_NAMED ? documentsOnly.join(", ") : `${documentsOnly.slice(0, REFUSALS_NAMED).join(", ")} and ${documentsOnly.length - REFUSALS_NAMED} more`;
    output.log(
      `  warning: ${documentsOnly.length} case${documentsOnly.length === 1 ? " names" : "s name"} relevant documents only (no relevant_chunk_ids or evidence), so ${documentsOnly.length === 1 ? "it is" : "they are"} scored at document level only: the retrieval metrics (recall, hit, MRR, NDCG, ...) count a relevant document found at the rank of its first chunk, and the context and citation metrics, which need the evidence itself, do not apply: ${named}`,
    );
  }
  if (options.stats) for (const line of formatMix(datasetMix(dataset.cases))) output.log(line);
}

/** The mix of the valid files' cases together: what a run over all of them would cover. */
function logTotal(valid: readonly Dataset[], given: number, output: { log: (line: string) => void }): void {
  const byIdentity = new Map<string, EvalCase>();
  for (const dataset of valid) for (const item of dataset.cases) if (!byIdentity.has(caseIdentity(item))) byIdentity.set(caseIdentity(item), item);
  const cases = [...byIdentity.values()];
  const listed = valid.reduce((sum, dataset) => sum + dataset.cases.length, 0);
  const repeated = listed - cases.length;
  const files = valid.length === given ? `${valid.length} files` : `the ${valid.length} valid files of ${given}`;
  output.log(`Total of ${files}: ${cases.length} case${cases.length === 1 ? "" : "s"}${repeated > 0 ? ` (${repeated} given in more than one file, counted once)` : ""}`);
  for (const line of formatMix(datasetMix(cases))) output.log(line);
}
