/**
 * Human labels as JSONL (one HumanLabel per line, the `human_labels` fields),
 * for teams that label elsewhere. An import is all or nothing: every line is
 * checked first, and a bad line is reported by its number with the problem.
 *
 * Who labelled comes from the importer's token, as for labels made in the UI:
 * with tokens, a line's `labeler_id` may be left out (it becomes the token's
 * reviewer) or be that reviewer, and a line naming anyone else refuses the
 * file — otherwise one reviewer could import labels as a second reviewer and
 * decide the two-reviewer agreement alone. Without tokens (the loopback
 * default, where everyone is "local") nobody's identity is proven, so the
 * file's labeler ids are kept and a missing one is "local".
 *
 * A line's fields: `case_result_id`, `metric` and `verdict` ("pass" or "fail")
 * are required; `labeler_id` as above; `trace_id` names the request of the
 * case reviewed (a case sent again has one per answer), and a line without
 * one is of the newest request of its case started at or before its
 * `labeled_at` (bind-imported-labels.ts); "" is a label of no request, as the
 * export writes one moved off its request; `note` (default ""), `value` (0..1 or
 * null, default null) and `labeled_at` (an ISO-8601 date-time) may be left
 * out — a line without `labeled_at` is labelled at the time of the import, so
 * it replaces an earlier label of the same case, metric and reviewer, as a
 * label saved in the form does; one more than LABELED_AT_SKEW_MS past the
 * import's time refuses the file. `label_id` is derived and best left out.
 */
import { z } from "zod";
import { MAXIMUM_COMMENT_CHARACTERS } from "./review-draft.js";
import { humanLabel, newHumanLabel, type HumanLabel } from "../../evaluators/judge/calibration/human-label.js";
import { failure, success, type Result } from "../../core/result.js";

export const MAXIMUM_IMPORT_LINES = 100_000;
/** How far past the server's clock a line's labeled_at may lie: clocks of the machine that wrote the file drift. */
export const LABELED_AT_SKEW_MS = 5 * 60_000;

/**
 * A line's schema, built once: zod compiles a schema the first time it parses, and `.omit()` inside the loop built
 * and compiled a new one for every line — 100,000 lines cost ~15 s of serve's one thread, receiver included
 * (test/security/label-import-bounds.test.ts).
 */
const importedLine = humanLabel.omit({ label_id: true }).extend({ trace_id: z.string().optional() });

/** What a line holds, said with a line's error so the fix is in the message (ui/README.md, "Review"). */
const LINE_FIELDS =
  'a line is one JSON object with case_result_id, metric and verdict ("pass" or "fail"); trace_id (the request reviewed, default: the newest started by labeled_at), labeler_id, note, value (0..1) and labeled_at (ISO-8601, default: the import\'s time) may be left out';

/** A line's text fields, each checked to be whole characters. */
const TEXT_FIELDS = ["case_result_id", "metric", "labeler_id", "note"] as const;

/**
 * A file's labels, each with its line number and the trace id its line gave: null for a line without one, whose
 * label holds "" until it is bound to a request (bind-imported-labels.ts), which needs the store. A line giving ""
 * is a label of no request (as the export writes a label moved off its request): kept so, counted toward nothing.
 */
export interface ImportedLabels {
  labels: HumanLabel[];
  lines: number[];
  givenTraceIds: (string | null)[];
}

export function labelsToJsonl(labels: readonly HumanLabel[]): string {
  return labels.map((label) => JSON.stringify(label)).join("\n") + (labels.length > 0 ? "\n" : "");
}

export interface LabelAuthor {
  reviewer: string;
  /** True when a token proved the reviewer: every label is theirs. */
  authenticated: boolean;
  /** When the file is imported (ISO-8601): the labeled_at of a line that gives none. */
  importedAt: string;
}

export function labelsFromJsonl(text: string, author: LabelAuthor): Result<ImportedLabels, string> {
  const lines = text.split("\n");
  if (lines.length > MAXIMUM_IMPORT_LINES + 1) return failure(`more than ${MAXIMUM_IMPORT_LINES} lines: split the file`);
  const labels: HumanLabel[] = [];
  const lineNumbers: number[] = [];
  const givenTraceIds: (string | null)[] = [];
  for (const [index, line] of lines.entries()) {
    if (line.trim() === "") continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch (error) {
      return failure(`line ${index + 1}: not JSON (${(error as Error).message})`);
    }
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) {
      const named = (parsed as { labeler_id?: unknown }).labeler_id;
      if (named === undefined) parsed = { ...parsed, labeler_id: author.reviewer };
      else if (author.authenticated && named !== author.reviewer) {
        return failure(
          `line ${index + 1}: labeler_id "${String(named)}" is not you ("${author.reviewer}"): labels are imported as the reviewer whose token sends them — leave labeler_id out, or let "${String(named)}" import their own labels with their own token`,
        );
      }
      const given = parsed as Record<string, unknown>;
      if (given.labeled_at === undefined) parsed = { ...given, labeled_at: author.importedAt };
    }
    // The id is derived, so a file written by hand needs none; one that carries an id must carry the derived one.
    const checked = importedLine.safeParse(parsed);
    if (!checked.success) return failure(`line ${index + 1}: ${checked.error.issues.map((issue) => `${issue.path.join(".") || "(line)"}: ${issue.message}`).join("; ")} — ${LINE_FIELDS}`);
    // Half of a character (a lone UTF-16 surrogate: JSON may escape one, "\ud83d") is no text the store can hold: it
    // refused the whole insert, which answered 500. Said with the line, as any other bad field.
    const broken = TEXT_FIELDS.find((field) => !checked.data[field].isWellFormed());
    if (broken !== undefined) return failure(`line ${index + 1}: ${broken} holds half of a character (a lone UTF-16 surrogate, as a text cut inside an emoji leaves): write the whole character, or remove the half`);
    // The form keeps a comment to this length and says when it cut one; an import is all or nothing, so a longer
    // note refuses the file with its line rather than being cut unsaid (or stored longer than any review can be).
    if (checked.data.note.length > MAXIMUM_COMMENT_CHARACTERS) {
      return failure(`line ${index + 1}: note is ${checked.data.note.length.toLocaleString("en")} characters, more than the ${MAXIMUM_COMMENT_CHARACTERS.toLocaleString("en")} a review keeps (as the review form's comment): shorten it`);
    }
    const label = newHumanLabel({ ...checked.data, trace_id: checked.data.trace_id ?? "" });
    // Of two labels of one metric the later labeled_at wins: one from the future would outlast every later save of
    // the form (which labels at the server's clock) until that time came. A small skew between clocks is allowed.
    if (Date.parse(label.labeled_at) > Date.parse(author.importedAt) + LABELED_AT_SKEW_MS) {
      return failure(
        `line ${index + 1}: labeled_at ${label.labeled_at} is later than this server's clock (${author.importedAt}) by more than ${LABELED_AT_SKEW_MS / 60_000} minutes: a label from the future would outlast every later save of the form — correct the time, or leave labeled_at out to label at the import's time`,
      );
    }
    const given = (parsed as { label_id?: unknown }).label_id;
    if (given !== undefined && given !== label.label_id) return failure(`line ${index + 1}: label_id "${String(given)}" is not the id of (case_result_id, metric, labeler_id) — leave label_id out`);
    labels.push(label);
    lineNumbers.push(index + 1);
    givenTraceIds.push(checked.data.trace_id ?? null);
  }
  return success({ labels, lines: lineNumbers, givenTraceIds });
}
