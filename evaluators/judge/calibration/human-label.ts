/**
 * A human label: a reviewer's verdict on one metric of one Case Result, the
 * ground truth judges are calibrated against (seed 004 §九.3 "用人工标注集校准
 * Judge", §九.4). One label per (case result, metric, labeler): relabelling
 * replaces the earlier label (its id is deterministic, the later `labeled_at`
 * wins). `value` is the reviewer's graded score in 0..1 when they gave one.
 */
import { z } from "zod";
import { deterministicId } from "../../../contracts/ids.js";

export const humanLabel = z.object({
  label_id: z.string().min(1),
  case_result_id: z.string().min(1),
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

export function newHumanLabel(input: HumanLabelInput): HumanLabel {
  return humanLabel.parse({ ...input, label_id: humanLabelIdFor(input.case_result_id, input.metric, input.labeler_id) });
}
