/**
 * The online stage refused its settings (an alerts gate file that is missing
 * or has a rule it cannot use, a Kafka judge queue without brokers): an
 * expected failure the operator fixes in the file or the RAGSCOPE_* variables,
 * so the command line says so in one line instead of "unexpected error".
 */
export class OnlineSettingsError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`online evaluation settings: ${problems.join("; ")}`);
    this.name = "OnlineSettingsError";
  }
}
