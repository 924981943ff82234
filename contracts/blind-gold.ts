/**
 * A blind split's gold: every Eval Case field that says what the case is
 * graded against, in one place. A blind set exists so that nobody tunes a
 * system to its cases (seed 004 §二.2 "盲测集：防止针对评测集过拟合"), and a
 * grading criterion read is tuned to as surely as a reference answer read:
 * the expected and forbidden behaviour, the rubric (the judge's scoring rules,
 * in 000's example "Top5 必须包含会员积分重新计算规则" — which names the gold
 * document), the citation requirement and the context policy are withheld
 * with the answers, evidence and key points. The simple format's
 * `relevant_document_ids` are kept in metadata beside the gold evidence built
 * from them (collector/wiring/dataset/simple-case.ts), so they are gold too.
 *
 * Every surface uses this list: the CLI's and the web UI's redaction of a
 * shown case (experiments/output/blind-redaction.ts), the report's matching of
 * gold text in its cells (report/withhold-blind-gold.ts) and the read API's
 * comparison of a case by field digests, which names a blind case's gold
 * fields only together (contracts/eval-case-digest.ts). A field added here is
 * withheld everywhere.
 *
 * What stays: the request's input and `context` (tenant, permissions, …: what
 * the system is given, not what it is graded against), the case's
 * descriptions (title, scenario, tags, difficulty, risk level), which metrics
 * it computes (`evaluation_metrics`, `evaluator_config.evaluator_ids`), and
 * `answerable`, which the shown `abstention_correct` score beside the shown
 * answer tells anyway.
 */
import type { EvalCase } from "./eval-case.js";

/**
 * How a gold field is withheld: a list the contract always has is emptied (so
 * code reading the shown case still finds a list), an optional field removed.
 */
type Withholding = "emptied" | "removed";

/** The gold fields, as paths one level deep (`evaluator_config.required_evidence`), each with how it is withheld. */
export const BLIND_GOLD_FIELDS: ReadonlyMap<string, Withholding> = new Map<string, Withholding>([
  ["reference_answer", "removed"],
  ["gold_evidence", "emptied"],
  ["key_points", "emptied"],
  ["evaluator_config.required_evidence", "emptied"],
  ["expected_behavior", "emptied"],
  ["negative_behavior", "emptied"],
  ["rubric", "removed"],
  ["citation_requirement", "removed"],
  ["context_policy", "removed"],
  ["metadata.relevant_document_ids", "removed"],
]);

/**
 * Whether a field path (`rubric`, `metadata.split`) is gold: a gold field, a
 * path inside one (`rubric.recall`), or a whole mapping that holds one
 * (`evaluator_config`, when it differs as a whole).
 */
export function isBlindGoldPath(path: string): boolean {
  for (const gold of BLIND_GOLD_FIELDS.keys()) {
    if (path === gold || path.startsWith(`${gold}.`) || gold.startsWith(`${path}.`)) return true;
  }
  return false;
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The case without its gold fields (see BLIND_GOLD_FIELDS for how each is withheld); the case given is not changed. */
export function withoutBlindGold(evalCase: EvalCase): EvalCase {
  const shown: Record<string, unknown> = { ...evalCase };
  for (const [path, withholding] of BLIND_GOLD_FIELDS) {
    const [outer, inner] = path.split(".") as [string, string | undefined];
    let holder = shown;
    let key = outer;
    if (inner !== undefined) {
      const mapping = shown[outer];
      if (!isMapping(mapping)) continue;
      holder = { ...mapping };
      shown[outer] = holder;
      key = inner;
    }
    if (withholding === "emptied") holder[key] = [];
    else delete holder[key];
  }
  return shown as EvalCase;
}

/** Every text of a value: a string itself, the strings in a list or mapping, recursively; numbers as written. */
function textsOf(value: unknown, into: string[]): void {
  if (typeof value === "string") into.push(value);
  else if (typeof value === "number") into.push(String(value));
  else if (Array.isArray(value)) for (const item of value) textsOf(item, into);
  else if (isMapping(value)) for (const item of Object.values(value)) textsOf(item, into);
}

/**
 * The texts of a case's gold fields (answers, evidence ids and text, key
 * points, behaviours, rubric rules and conditions, …): what a printed text
 * must not quote. A rubric's keys are metric or dimension names, not gold; its
 * values are.
 */
export function blindGoldTexts(evalCase: EvalCase): string[] {
  const texts: string[] = [];
  const record = evalCase as unknown as Record<string, unknown>;
  for (const path of BLIND_GOLD_FIELDS.keys()) {
    const [outer, inner] = path.split(".") as [string, string | undefined];
    const value = inner === undefined ? record[outer] : isMapping(record[outer]) ? record[outer][inner] : undefined;
    if (path === "rubric" && Array.isArray(value)) {
      // The generic rubric's dimensions name what is scored (faithfulness); their conditions are the rules.
      for (const dimension of value as { pass_condition?: string; fail_condition?: string }[]) textsOf([dimension.pass_condition, dimension.fail_condition], texts);
    } else {
      textsOf(value, texts);
    }
  }
  return texts;
}
