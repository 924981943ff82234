/**
 * Expected failures are values, not exceptions (see STYLE.md "Behaviour").
 * Bugs still throw; a caller that gets `ok: false` knows the failure was foreseen
 * and carries what is needed to report it.
 */
export type Result<Value, Failure> = { ok: true; value: Value } | { ok: false; error: Failure };

export function success<Value>(value: Value): { ok: true; value: Value } {
  return { ok: true, value };
}

export function failure<Failure>(error: Failure): { ok: false; error: Failure } {
  return { ok: false, error };
}
