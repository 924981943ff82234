/**
 * The time windows the derived behaviour metrics use, in milliseconds, with
 * their defaults. Every edge is inclusive: a next request exactly
 * `followUpMs` after the answer is a follow-up.
 */
export interface BehaviourWindows {
  /** A new request in the session this soon after the answer is a follow-up (default 10 minutes). */
  readonly followUpMs: number;
  /** An earlier near-duplicate question this recent (start to start) makes a repeat (default 30 minutes). */
  readonly repeatMs: number;
  /** Jaccard similarity of query tokens at or above which two questions are near-duplicates (default 0.8). */
  readonly repeatSimilarity: number;
  /** A session whose last answer got no event or request this long after it is abandoned (default 30 minutes). */
  readonly abandonMs: number;
}

export const defaultBehaviourWindows: BehaviourWindows = {
  followUpMs: 10 * 60_000,
  repeatMs: 30 * 60_000,
  repeatSimilarity: 0.8,
  abandonMs: 30 * 60_000,
};
