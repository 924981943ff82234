/**
 * `ragscope/langchain`: the LangChain.js callback handler, on its own entry
 * point because it needs @langchain/core (an optional peer dependency).
 */
export { RagscopeCallbackHandler } from "./langchain-callback-handler.js";
