/**
 * Process-wide SDK settings the stage wrappers read on every call.
 *
 * `setupRagscope` writes them; services that bring their own tracer provider
 * (and tests) set them with `configureRagscope`. They are read per call, not
 * captured at import, so a change applies to the next span.
 */
export interface RagscopeConfiguration {
  /**
   * When false, spans keep ids, ranks and scores but no chunk content, prompt,
   * answer or context text.
   */
  readonly captureText: boolean;
}

let current: RagscopeConfiguration = Object.freeze({ captureText: true });

export function configureRagscope(options: { captureText?: boolean }): void {
  current = Object.freeze({ ...current, ...definedOnly(options) });
}

export function ragscopeConfiguration(): RagscopeConfiguration {
  return current;
}

function definedOnly(options: { captureText?: boolean }): Partial<RagscopeConfiguration> {
  return typeof options?.captureText === "boolean" ? { captureText: options.captureText } : {};
}
