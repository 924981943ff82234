/**
 * Attribute values that OTel can always carry.
 *
 * An OTel attribute value is a string, boolean, number, or a homogeneous array
 * of one of those (OTel specification, common "Attribute"). Values from
 * application extractors are unchecked at run time, so every attribute the SDK
 * writes goes through `AttributeRecorder.set`, which drops what is not valid
 * instead of handing it to the SDK. Absent values (undefined, null) and NaN are
 * skipped quietly: they mean "not known". Anything else that is not a valid
 * value is skipped and noted as a problem, which the span wrapper counts
 * (instrumentation-errors.ts).
 */
import type { AttributeValue, Attributes, Span } from "@opentelemetry/api";
import type { RedactBeforeCut } from "./redaction/redact-then-cut.js";
import { redactThenCut } from "./redaction/redact-then-cut.js";
import { isStructuralAttribute } from "./redaction/structural-attributes.js";
import { Ragscope } from "../contracts/span-attributes.js";
import { describeType } from "./records/describe-type.js";
import { cutText, wellFormed } from "../core/cut-text.js";

/** `value` as an attribute value, or undefined when OTel cannot carry it. */
export function toAttributeValue(value: unknown): AttributeValue | undefined {
  if (typeof value === "string" || typeof value === "boolean") return value;
  // OTLP/JSON cannot encode infinities, so only finite numbers are carried.
  if (typeof value === "number") return Number.isFinite(value) ? value : undefined;
  if (Array.isArray(value)) return toHomogeneousArray(value);
  return undefined;
}

function toHomogeneousArray(values: readonly unknown[]): AttributeValue | undefined {
  if (values.every((item) => typeof item === "string")) return [...(values as string[])];
  if (values.every((item) => typeof item === "number" && Number.isFinite(item))) return [...(values as number[])];
  if (values.every((item) => typeof item === "boolean")) return [...(values as boolean[])];
  return undefined;
}

function isAbsent(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === "number" && Number.isNaN(value));
}

/**
 * Collects the attributes of one span and the problems met building them.
 * Text longer than `maxTextLength` is cut to it (a huge document must not
 * make a huge span: configuration.ts), never inside a surrogate pair, and
 * redacted before it is cut when redaction is on (redaction/redact-then-cut.ts:
 * the exporter's redaction could not recognise a secret cut in half); ids,
 * kinds, versions and linkage (redaction/structural-attributes.ts) are never
 * cut, since a cut id would match nothing. Lone
 * surrogates an application string carries become U+FFFD. Either would make
 * the span's text ill-formed UTF-16, which OTLP/JSON carries as an escape that
 * no UTF-8 decoder accepts.
 */
/** How many cut texts one recording notes on its span: a retrieval of many long chunks notes its first ones, bounded. */
export const MAX_CUT_NOTES = 16;

export class AttributeRecorder {
  /** What was recorded, when the recorder has no span to write to. */
  readonly attributes: Attributes = {};
  readonly problems: string[] = [];
  /** Texts cut to maxTextLength so far; each of the first MAX_CUT_NOTES is recorded beside it (`ragscope.cut.<key>`). */
  private cuts = 0;

  /**
   * With `span`, each value goes straight onto that started span and
   * `attributes` stays empty: collecting a retrieval's hundred-odd chunk
   * attributes in an object first, for the span to copy one by one, made
   * each of them twice (test/bench/sdk-export.bench.ts).
   */
  constructor(
    private readonly maxTextLength: number = Number.POSITIVE_INFINITY,
    private readonly span?: Span,
    /** Set when the export path redacts (configuration.ts `redactBeforeCut`). */
    private readonly redactBeforeCut: RedactBeforeCut | null = null,
  ) {}

  /** Sets `key` when `value` is a valid attribute value; see the module comment. */
  set(key: string, value: unknown): void {
    if (isAbsent(value)) return;
    if (typeof value === "string") {
      // Whether the key may be cut is asked only of a text over the limit: most are under it.
      if (value.length <= this.maxTextLength || isStructuralAttribute(key)) {
        this.write(key, wellFormed(value));
        return;
      }
      if (this.redactBeforeCut !== null) {
        const redacted = redactThenCut(key, value, this.maxTextLength, this.redactBeforeCut);
        this.write(key, redacted.text);
        if (!redacted.cut) return;
      } else {
        this.write(key, cutText(value, this.maxTextLength));
      }
      // The cut said on the span: evaluated as recorded, an answer's or a chunk's beginning would pass for all of it.
      if (this.cuts === 0) this.write(Ragscope.cut, true);
      if (this.cuts < MAX_CUT_NOTES) this.write(`${Ragscope.cutPrefix}${key}`, value.length);
      this.cuts += 1;
      return;
    }
    const attributeValue = toAttributeValue(value);
    if (attributeValue === undefined) {
      this.problems.push(`${key}: not a valid attribute value`);
      return;
    }
    this.write(key, attributeValue);
  }

  private write(key: string, value: AttributeValue): void {
    if (this.span === undefined) this.attributes[key] = value;
    else this.span.setAttribute(key, value);
  }

  /**
   * `value` when it is a number, undefined when it is absent, else undefined with a problem naming `field`. A number
   * the application gives as another type — most often a count read from a provider's JSON as a string, "100" — is
   * left off the span rather than recorded as text: the collector read such text as a number nobody had checked, and
   * the sums made from it (total tokens) were left out without a word.
   */
  number(field: string, value: unknown): number | undefined {
    if (typeof value === "number") return value;
    if (isAbsent(value)) return undefined;
    // The type, not the value: a field given by mistake may carry anything, and the problem is said on stderr.
    this.problems.push(`${field} is ${describeType(value)}, not a number: left off the span (give it as a number, e.g. Number(value) where the application reads it)`);
    return undefined;
  }

  /**
   * `value` when it is a boolean, undefined when it is absent, else undefined with a problem naming `field`. A flag
   * given as text ("yes", "1") was recorded as that text, which the collector cannot read as a flag: the request was
   * then read as not saying whether it abstained, without a word to the application.
   */
  boolean(field: string, value: unknown): boolean | undefined {
    if (typeof value === "boolean") return value;
    if (isAbsent(value)) return undefined;
    this.problems.push(`${field} is ${describeType(value)}, not true or false: left off the span (give it as a boolean, e.g. value === "true" where the application reads it)`);
    return undefined;
  }

  problem(description: string): void {
    this.problems.push(description);
  }
}
