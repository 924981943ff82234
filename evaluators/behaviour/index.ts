/** User-behaviour metrics (seed §十一 用户行为指标, §十二 业务指标): see README.md for every definition. */
export { behaviourMetrics, summarizeBehaviour } from "./behaviour-catalog.js";
export { summarize, type BehaviourContext, type BehaviourMetricDefinition, type BehaviourObservation, type BehaviourSummary } from "./behaviour-metric.js";
export { toBehaviourRequest, type BehaviourRequest, type UserEvent } from "./behaviour-request.js";
export { defaultBehaviourWindows, type BehaviourWindows } from "./behaviour-windows.js";
export { querySimilarity } from "./query-similarity.js";
