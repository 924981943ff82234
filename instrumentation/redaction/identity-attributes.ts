/**
 * Attributes that name who asked: the user, the session and the principal.
 * Experiment reports count them as units (one user, one unit; a user seen in
 * two arms is a warning), sessions group follow-ups, and feedback sent days
 * later from another process carries the same session id. So their identity
 * must survive redaction: two users must never become one value.
 *
 * `replace` would turn every id holding an e-mail address or phone number into
 * the same `[REDACTED:email]` — twelve users counted as one. These ids are
 * therefore kept as the application gave them in `replace` mode (what the
 * README promises for ids: pass an opaque id if the id itself is personal),
 * and in `hash` mode a sensitive value inside them becomes the same keyed hash
 * as everywhere else: distinct users stay distinct, and equal across processes
 * when they share RAGSCOPE_REDACTION_HASH_KEY. A keyed pseudonym is not used in
 * `replace` mode because its key would be random per process there: the same
 * user would count as a new unit in every process and after every restart.
 */
import { OpenInference, Ragscope } from "../../contracts/span-attributes.js";

const identityKeys = new Set<string>([OpenInference.userId, OpenInference.sessionId, Ragscope.principalId]);

export function isIdentityAttribute(key: string): boolean {
  return identityKeys.has(key);
}
