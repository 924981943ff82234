/**
 * `rag.request`: the root span of one user request (OpenInference CHAIN). It
 * carries who asked (tenant, principal, groups, route, session, user) and, for
 * offline runs, the run / case / dataset linkage the collector uses to build
 * the Case Result.
 */
import { OpenInference, OpenInferenceSpanKind, RagStage, Ragscope } from "../../contracts/span-attributes.js";
import { runInSpan, type StageDefinition } from "../run-in-span.js";
import { annotateSpan, enclosingRequestSpan } from "../stage-span.js";

export interface RequestOptions {
  query: string;
  runId?: string;
  caseId?: string;
  caseVersion?: string;
  datasetId?: string;
  datasetVersion?: string;
  tenantId?: string;
  principalId?: string;
  /** The groups / roles the principal holds, matched against chunk ACLs. */
  principalGroups?: string[];
  route?: string;
  sessionId?: string;
  userId?: string;
  /** The online experiment this request is part of (`ragscope.experiment.id`). */
  experimentId?: string;
  /** The variant (arm) this request saw (`ragscope.experiment.variant`); see assignVariant. */
  experimentVariant?: string;
}

/**
 * Traces one request. The answer is read with `toAnswer`, or is the value
 * itself when `fn` returns a string.
 *
 * A request started inside another request (an application's handler called
 * by `ragscope eval`, which opens the request with the run and case linkage)
 * is the same request, not a second one: its stages become children of the
 * enclosing span, who is asking (tenant, principal, groups, route, session,
 * user) is added to it, and the enclosing request keeps its own linkage,
 * query and answer.
 */
export async function traceRequest<T>(
  options: RequestOptions,
  fn: () => Promise<T> | T,
  toAnswer?: (value: T) => string,
): Promise<T> {
  const enclosing = enclosingRequestSpan();
  if (enclosing === undefined) return runInSpan(requestStage(options, toAnswer), fn);
  annotateSpan(enclosing, RagStage.request, (recorder) => {
    recorder.set(Ragscope.tenantId, options.tenantId);
    recorder.set(Ragscope.principalId, options.principalId);
    recorder.set(Ragscope.principalGroups, options.principalGroups);
    recorder.set(Ragscope.route, options.route);
    recorder.set(OpenInference.sessionId, options.sessionId);
    recorder.set(OpenInference.userId, options.userId);
    recorder.set(Ragscope.experimentId, options.experimentId);
    recorder.set(Ragscope.experimentVariant, options.experimentVariant);
  });
  return await fn();
}

/** The span description of this stage, shared by the wrapper and the framework adapters. */
export function requestStage<T>(options: RequestOptions, toAnswer?: (value: T) => string): StageDefinition<T> {
  return {
    stage: RagStage.request,
    spanKind: OpenInferenceSpanKind.chain,
    recordStart: (recorder) => {
      recorder.set(OpenInference.inputValue, options.query);
      recorder.set(Ragscope.query, options.query);
      recorder.set(Ragscope.runId, options.runId);
      recorder.set(Ragscope.caseId, options.caseId);
      recorder.set(Ragscope.caseVersion, options.caseVersion);
      recorder.set(Ragscope.datasetId, options.datasetId);
      recorder.set(Ragscope.datasetVersion, options.datasetVersion);
      recorder.set(Ragscope.tenantId, options.tenantId);
      recorder.set(Ragscope.principalId, options.principalId);
      recorder.set(Ragscope.principalGroups, options.principalGroups);
      recorder.set(Ragscope.route, options.route);
      recorder.set(OpenInference.sessionId, options.sessionId);
      recorder.set(OpenInference.userId, options.userId);
      recorder.set(Ragscope.experimentId, options.experimentId);
      recorder.set(Ragscope.experimentVariant, options.experimentVariant);
    },
    recordResult: (recorder, value, configuration) => {
      if (!configuration.captureText) return;
      // Without `toAnswer`, only a string value is an answer; any other value
      // simply has no answer to record.
      const answer: unknown = toAnswer !== undefined ? toAnswer(value) : value;
      if (typeof answer !== "string") {
        if (toAnswer !== undefined) recorder.problem(`toAnswer returned ${typeof answer}, not a string`);
        return;
      }
      recorder.set(OpenInference.outputValue, answer);
      recorder.set(Ragscope.answer, answer);
    },
  };
}
