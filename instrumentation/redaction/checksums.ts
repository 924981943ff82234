/**
 * Check digits that tell a real identifier from a number that only looks like
 * one, so redaction does not blank order numbers, timestamps and amounts.
 *
 * The functions live in core/sensitive-data.ts, shared with the
 * collector's answer checks (evaluators/online/); this
 * module keeps the SDK's import path.
 */
export { isChineseResidentId, passesLuhn } from "../../core/sensitive-data.js";
