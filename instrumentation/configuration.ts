/**
 * Process-wide SDK settings the stage wrappers read on every call.
 *
 * `setupRagscope` writes them; services that bring their own tracer provider
 * (and tests) set them with `configureRagscope`. They are read per call, not
 * captured at import, so a change applies to the next span.
 */
import type { RagStageName } from "../contracts/span-attributes.js";
import type { RedactBeforeCut } from "./redaction/redact-then-cut.js";

export type StageSwitches = Partial<Record<RagStageName, boolean>>;

export interface RagscopeConfiguration {
  /**
   * When false, spans keep ids, ranks and scores but no chunk content, prompt,
   * answer or context text. The default for stages `captureTextByStage` does
   * not name.
   */
  readonly captureText: boolean;
  /** Per-stage overrides of `captureText`, e.g. `{ generate: false }`. */
  readonly captureTextByStage: Readonly<StageSwitches>;
  /**
   * Longest string the wrappers write into one attribute; longer texts (a huge
   * document) are cut to this many UTF-16 code units, so a span's size, its
   * export and its redaction stay bounded.
   */
  readonly maxTextLength: number;
  /**
   * Fraction of traces kept (head sampling by trace id, sampling/trace-id-sampling.ts);
   * the feedback stage reads it to follow its request's decision.
   */
  readonly sampleRate: number;
  /**
   * The export path's redaction, applied to a text before it is cut to
   * `maxTextLength` (redaction/redact-then-cut.ts); null when nothing redacts.
   * Set by `createRagscopeSpanProcessor` (and so `setupRagscope`).
   */
  readonly redactBeforeCut: RedactBeforeCut | null;
}

export interface ConfigureOptions {
  captureText?: boolean;
  captureTextByStage?: StageSwitches;
  maxTextLength?: number;
  sampleRate?: number;
  redactBeforeCut?: RedactBeforeCut | null;
}

/** 32 Ki characters: several pages of text, far below OTLP body limits. */
export const DEFAULT_MAX_TEXT_LENGTH = 32_768;

const initial: RagscopeConfiguration = Object.freeze({
  captureText: true,
  captureTextByStage: Object.freeze({}),
  maxTextLength: DEFAULT_MAX_TEXT_LENGTH,
  sampleRate: 1,
  redactBeforeCut: null,
});

let current: RagscopeConfiguration = initial;
/** Per-stage views of `current`, built once per configuration change (run-in-span reads them per call). */
let byStage = new Map<RagStageName, RagscopeConfiguration>();

export function configureRagscope(options: ConfigureOptions): void {
  current = Object.freeze({ ...current, ...definedOnly(options) });
  byStage = new Map();
}

export function ragscopeConfiguration(): RagscopeConfiguration {
  return current;
}

/** The configuration as one stage sees it: `captureText` resolved for that stage. */
export function stageConfiguration(stage: RagStageName): RagscopeConfiguration {
  let configuration = byStage.get(stage);
  if (configuration === undefined) {
    const captureText = current.captureTextByStage[stage] ?? current.captureText;
    configuration = captureText === current.captureText ? current : Object.freeze({ ...current, captureText });
    byStage.set(stage, configuration);
  }
  return configuration;
}

function definedOnly(options: ConfigureOptions): Partial<RagscopeConfiguration> {
  const defined: { -readonly [Key in keyof RagscopeConfiguration]?: RagscopeConfiguration[Key] } = {};
  if (typeof options?.captureText === "boolean") defined.captureText = options.captureText;
  if (typeof options?.captureTextByStage === "object" && options.captureTextByStage !== null) {
    defined.captureTextByStage = Object.freeze(
      Object.fromEntries(Object.entries(options.captureTextByStage).filter(([, value]) => typeof value === "boolean")),
    );
  }
  if (typeof options?.maxTextLength === "number" && options.maxTextLength >= 0) defined.maxTextLength = Math.floor(options.maxTextLength);
  if (typeof options?.sampleRate === "number" && options.sampleRate >= 0 && options.sampleRate <= 1) defined.sampleRate = options.sampleRate;
  if (typeof options?.redactBeforeCut === "function" || options?.redactBeforeCut === null) defined.redactBeforeCut = options.redactBeforeCut;
  return defined;
}
