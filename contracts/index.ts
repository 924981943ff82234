// Result is part of the contract API because the schema parsers (gate file) return it;
// it lives in core/, the module every side shares.
export * from "../core/result.js";
export * from "./span-attributes.js";
export * from "./eval-case.js";
export * from "./case-result.js";
export * from "./evaluation-result.js";
export * from "./run-lineage.js";
export * from "./ids.js";
