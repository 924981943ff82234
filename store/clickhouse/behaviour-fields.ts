/**
 * case_results.behaviour_fields (migration 0017): the parts of a stored Case
 * Result the behaviour metrics read, as the payload's own JSON text for each
 * (null stays null, an empty string stays empty). Turned into the
 * BehaviourRequest evaluators/behaviour/behaviour-request.ts builds from a
 * whole Case Result (toBehaviourRequest), field by field the same, so the
 * Quality page's behaviour board parses a few hundred bytes a request
 * instead of its payload.
 */
import type { BehaviourRequest } from "../../evaluators/behaviour/behaviour-request.js";

interface StoredFeedback {
  kind: string;
  value?: string | null;
  chunk_id?: string | null;
  recorded_at: string;
}

interface StoredBehaviourFields {
  session_id: string | null;
  user_id: string | null;
  experiment_id: string | null;
  experiment_variant: string | null;
  query: string | null;
  started_at: string;
  completed_at: string | null;
  cited: boolean;
  feedback: StoredFeedback[] | null;
}

/** A request from its trace id and its behaviour_fields text; an Error naming the trace when the text is not the column's shape. */
export function behaviourRequestOf(traceId: string, text: string): BehaviourRequest {
  let fields: StoredBehaviourFields;
  try {
    fields = JSON.parse(text) as StoredBehaviourFields;
  } catch (error) {
    throw new Error(`case_results.behaviour_fields of trace ${traceId} is not JSON (${error instanceof Error ? error.message : String(error)}); recompute it with ALTER TABLE case_results MATERIALIZE COLUMN behaviour_fields`);
  }
  const startedAt = Date.parse(fields.started_at);
  const completed = fields.completed_at === null ? Number.NaN : Date.parse(fields.completed_at);
  return {
    traceId,
    sessionKey: fields.session_id ?? `trace:${traceId}`,
    sessionId: fields.session_id,
    userId: fields.user_id,
    experimentId: fields.experiment_id,
    variant: fields.experiment_variant,
    query: fields.query,
    startedAt,
    endedAt: Number.isFinite(completed) ? completed : startedAt,
    cited: fields.cited,
    events: (fields.feedback ?? [])
      .map((entry) => ({ kind: entry.kind, value: entry.value ?? null, chunkId: entry.chunk_id ?? null, at: Date.parse(entry.recorded_at) }))
      .sort((left, right) => left.at - right.at),
  };
}
