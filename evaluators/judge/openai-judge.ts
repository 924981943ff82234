/**
 * The LLM judge over any OpenAI-compatible chat-completions endpoint (base URL,
 * model, key). One call per metric, with the metric's rubric (rubrics/), its
 * zod-validated structured answer, and the retry, budget and pricing of
 * ChatJudgeClient. The pass rule is the case rubric's threshold for the
 * metric when it has one, else the rubric's default (judge-thresholds.ts).
 *
 * A metric whose inputs are missing is a bug of the caller — applicable
 * metrics come from applicableJudgeMetrics() — so it throws.
 */
import { success } from "../../core/result.js";
import { satisfies } from "../threshold.js";
import { ChatJudgeClient, type ChatJudgeClientOptions } from "./chat-judge-client.js";
import type { Judge, JudgeMetric, JudgeOutcome, JudgeRequest } from "./judge.js";
import { judgeInputsFor } from "./judge-inputs.js";
import { thresholdFor } from "./judge-thresholds.js";
import { rubricFor, RUBRIC_SET_VERSION } from "./rubrics/rubric-registry.js";

export interface OpenAiJudgeOptions extends ChatJudgeClientOptions {
  /** Stable id of this judge in results and calibration; default `openai:<model>`. */
  id?: string;
  /** Only these metrics are judged (e.g. to bound cost); default: every metric of JUDGE_METRICS. */
  metrics?: readonly JudgeMetric[];
}

export class OpenAiJudge implements Judge {
  readonly id: string;
  readonly model: string;
  readonly promptVersion = RUBRIC_SET_VERSION;
  readonly confidenceSemantics = "judge_self_report" as const;
  readonly metrics?: readonly JudgeMetric[];
  /** The structured-call client, shared with pairwise comparison (pairwise/). */
  readonly client: ChatJudgeClient;

  constructor(options: OpenAiJudgeOptions) {
    this.id = options.id ?? `openai:${options.model}`;
    this.model = options.model;
    if (options.metrics !== undefined) this.metrics = options.metrics;
    this.client = new ChatJudgeClient(options);
  }

  async judge(request: JudgeRequest, signal?: AbortSignal): Promise<JudgeOutcome> {
    const rubric = rubricFor(request.metric);
    const inputs = judgeInputsFor(request.caseResult, request.evalCase);
    const notApplicable = rubric.notApplicableReason(inputs);
    if (notApplicable !== null) throw new Error(`judge metric ${request.metric} does not apply to case result ${request.caseResult.case_result_id}: ${notApplicable}`);
    const prompt = rubric.prompt(inputs);
    const result = await this.client.call(
      {
        ...prompt,
        schemaName: request.metric,
        jsonSchema: rubric.outputJsonSchema(),
        interpret: (answer) => {
          const scored = rubric.interpret(answer, inputs);
          return scored.ok ? success(scored.value) : scored;
        },
      },
      signal,
    );
    const common = { metric: request.metric, judgeId: this.id, promptVersion: rubric.version };
    if (!result.ok) return { kind: "grader_error", ...common, errorType: result.error.errorType, message: result.error.message, usage: result.error.usage };
    const scored = result.value.value;
    const kind = satisfies(scored.value, thresholdFor(request.metric, request.evalCase)) ? "pass" : "fail";
    return { kind, ...common, value: scored.value, reason: scored.reason, details: scored.details, usage: result.value.usage };
  }
}
