/// <reference types="node" preserve="true" />
// The declarations name Node's types (NodeJS.ProcessEnv, Buffer): kept in the emitted .d.ts, so an application whose
// compiler does not load every @types package by itself (TypeScript 6 and later) still resolves them.
/**
 * `ragscope/langchain`: the LangChain.js callback handler, on its own entry
 * point because it needs @langchain/core (an optional peer dependency).
 */
export { RagscopeCallbackHandler } from "./langchain-callback-handler.js";
