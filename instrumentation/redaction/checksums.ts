/**
 * Check digits that tell a real identifier from a number that only looks like
 * one, so redaction does not blank order numbers, timestamps and amounts.
 *
 * The functions live in contracts/sensitive-data.ts, shared with the
 * collector's answer checks (evaluators/ may import only contracts/); this
 * module keeps the SDK's import path.
 */
export { isChineseResidentId, passesLuhn } from "../../contracts/sensitive-data.js";
