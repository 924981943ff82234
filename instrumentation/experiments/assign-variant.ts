/**
 * Deterministic assignment of a unit (a user or a session) to an experiment
 * variant: the same unit always sees the same variant, with no state to keep,
 * in any process, so requests of one unit are never split between arms.
 *
 * The bucket is the first 52 bits of SHA-256(`<experiment id>:<unit id>`)
 * scaled to [0, 1); variants own consecutive slices of [0, 1) in proportion to
 * their weights, in the order given. Hashing the experiment id with the unit
 * makes assignments of two experiments independent (a user in B of one is not
 * more likely in B of the other). Changing weights or order while an
 * experiment runs moves units between variants: start a new experiment id.
 */
import { createHash } from "node:crypto";
import { failure, success, type Result } from "../../core/result.js";

export interface VariantWeight {
  readonly name: string;
  /** A positive share; shares are relative (1 and 1 is 50/50). */
  readonly weight: number;
}

export interface AssignmentOptions {
  readonly experimentId: string;
  /** A stable id of the unit: the user id (usual) or the session id. */
  readonly unitId: string;
  /** At least two variants; the first is the control by convention. */
  readonly variants: readonly VariantWeight[];
}

/** The unit's position in [0, 1) for this experiment. */
export function assignmentBucket(experimentId: string, unitId: string): number {
  const digest = createHash("sha256").update(`${experimentId}:${unitId}`).digest();
  // 52 bits: an integer a double holds exactly.
  const high = digest.readUInt32BE(0);
  const low = digest.readUInt32BE(4) >>> 12;
  return (high * 2 ** 20 + low) / 2 ** 52;
}

/** The variant name for the unit, or a failure saying what is wrong with the options. */
export function assignVariant(options: AssignmentOptions): Result<string, string> {
  if (typeof options.experimentId !== "string" || options.experimentId === "") return failure("assignVariant needs a non-empty experimentId");
  if (typeof options.unitId !== "string" || options.unitId === "") return failure("assignVariant needs a non-empty unitId (a user id or a session id)");
  if (!Array.isArray(options.variants) || options.variants.length < 2) return failure("assignVariant needs at least two variants");
  const names = new Set<string>();
  for (const variant of options.variants) {
    if (typeof variant.name !== "string" || variant.name === "") return failure("every variant needs a non-empty name");
    if (names.has(variant.name)) return failure(`variant "${variant.name}" is listed twice`);
    names.add(variant.name);
    if (!(Number.isFinite(variant.weight) && variant.weight > 0)) return failure(`variant "${variant.name}" has weight ${String(variant.weight)}; weights must be positive numbers`);
  }
  const total = options.variants.reduce((sum, variant) => sum + variant.weight, 0);
  const position = assignmentBucket(options.experimentId, options.unitId) * total;
  let upper = 0;
  for (const variant of options.variants) {
    upper += variant.weight;
    if (position < upper) return success(variant.name);
  }
  // Rounding can leave the last slice's upper edge a hair below the total.
  return success(options.variants.at(-1)!.name);
}
