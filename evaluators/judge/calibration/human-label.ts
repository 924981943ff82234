/**
 * A human label: a reviewer's verdict on one metric of one Case Result, the
 * ground truth judges are calibrated against (seed 004 §九.3 "用人工标注集校准
 * Judge", §九.4). One label per (case result, metric, labeler): relabelling
 * replaces the earlier label (its id is deterministic, the later `labeled_at`
 * wins). `value` is the reviewer's graded score in 0..1 when they gave one.
 *
 * A label is of one answer: `trace_id` names the request of the case the
 * reviewer saw (a case sent again is another request, with another answer).
 * It counts toward that request's review only (labelsOfRequest), so a case
 * sent again gets its automatic verdict back until it is reviewed again,
 * rather than showing a review of an answer nobody read. A reviewer keeps one
 * label per case and metric (the id leaves the trace out), so one review of a
 * case: labelling another request of it moves their review there, and their
 * labels of the earlier request that the new review does not replace are
 * moved off it (trace_id "", movedOffRequest) — never left behind as a part
 * of a review that would count as a pass on its own. A label stored before labels
 * named their request is bound by migration 0037 to the newest request of its
 * case started at or before it; one with no such request is bound to none
 * (trace_id ""), kept and exported, and counts toward no request's review.
 */
import { z } from "zod";
import { deterministicId } from "../../../contracts/ids.js";

export const humanLabel = z.object({
  label_id: z.string().min(1),
  case_result_id: z.string().min(1),
  /** The request reviewed; "" for a label from before labels named it that no stored request was found for. */
  trace_id: z.string(),
  metric: z.string().min(1),
  labeler_id: z.string().min(1),
  verdict: z.enum(["pass", "fail"]),
  value: z.number().min(0).max(1).nullable().default(null),
  note: z.string().default(""),
  /** Normalised to ISO-8601 UTC with milliseconds, whatever the store returned. */
  labeled_at: z
    .string()
    .refine((text) => !Number.isNaN(Date.parse(text)), { message: "expected an ISO-8601 date-time" })
    .transform((text) => new Date(text).toISOString()),
});

export type HumanLabel = z.infer<typeof humanLabel>;
export type HumanLabelInput = Omit<z.input<typeof humanLabel>, "label_id">;

export function humanLabelIdFor(caseResultId: string, metric: string, labelerId: string): string {
  return deterministicId("hl", caseResultId, metric, labelerId);
}

/** The labels of one request of a case: those of its Case Result id given on that request (its trace id). */
export function labelsOfRequest<Label extends Pick<HumanLabel, "case_result_id" | "trace_id">>(labels: readonly Label[], request: { case_result_id: string; trace_id: string }): Label[] {
  return labels.filter((label) => label.case_result_id === request.case_result_id && label.trace_id === request.trace_id);
}

/**
 * The reviewer's labels of a case on requests other than `traceId` that labels of theirs on `traceId` (`replacing`:
 * the metrics they label there now) do not replace, moved off their request at `labeledAt`: kept, and counted toward no
 * request's review. A review of a case is of one request: left on the earlier request, a part of the reviewer's
 * review of it would count as the whole (a pass on the metrics left).
 */
export function movedOffRequest(earlierOfCase: readonly HumanLabel[], reviewer: string, traceId: string, replacing: ReadonlySet<string>, labeledAt: string): HumanLabel[] {
  return earlierOfCase
    .filter((label) => label.labeler_id === reviewer && label.trace_id !== "" && label.trace_id !== traceId && !replacing.has(label.metric))
    .map((label) => ({ ...label, trace_id: "", labeled_at: laterThan(label, labeledAt) }));
}

/**
 * `labeledAt`, or just after `stored`'s labeled_at when that is later: the store keeps the later of two labels with
 * one id, and an import may date a label a few minutes ahead of the server's clock (labels-jsonl.ts
 * LABELED_AT_SKEW_MS), which would otherwise outlast the label meant to replace it.
 */
export function laterThan(stored: Pick<HumanLabel, "labeled_at">, labeledAt: string): string {
  const storedMs = Date.parse(stored.labeled_at);
  return storedMs >= Date.parse(labeledAt) ? new Date(storedMs + 1).toISOString() : labeledAt;
}

export function newHumanLabel(input: HumanLabelInput): HumanLabel {
  return humanLabel.parse({ ...input, label_id: humanLabelIdFor(input.case_result_id, input.metric, input.labeler_id) });
}
