export * from "./result.js";
export * from "./span-attributes.js";
export * from "./eval-case.js";
export * from "./case-result.js";
export * from "./evaluation-result.js";
export * from "./run-lineage.js";
export * from "./ids.js";
