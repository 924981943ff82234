/**
 * The name and version ragscope's tracer reports as its instrumentation scope
 * (OTLP `scope.name` / `scope.version`). The version follows package.json; a
 * unit test keeps the two equal.
 */
export const RAGSCOPE_TRACER_NAME = "ragscope";
export const RAGSCOPE_SDK_VERSION = "0.1.0";
