/**
 * Why a body is not an OTLP trace request, and where in it.
 *
 * Malformed input is an expected failure (a client's bug, a wrong topic), so the
 * codec returns it as a value, and the receiver sends `message` back in a 400
 * answer.
 */
export interface OtlpDecodeError {
  /** Where the problem is, e.g. `resourceSpans[0].scopeSpans[1].spans[3].traceId`; empty for the whole body. */
  path: string;
  /** The full sentence, path included, fit to send back to the client. */
  message: string;
}

export function otlpDecodeError(path: string, problem: string): OtlpDecodeError {
  return { path, message: path === "" ? problem : `${path}: ${problem}` };
}

/**
 * Carries an OtlpDecodeError out of the codec's recursive tree walks.
 *
 * It never leaves the codec: the decode functions catch it at their top and
 * return `failure(error)`. Unwinding a deep walk this way keeps every level
 * free of Result plumbing; any other exception is still a bug.
 */
export class MalformedOtlp extends Error {
  readonly decodeError: OtlpDecodeError;

  constructor(path: string, problem: string) {
    const decodeError = otlpDecodeError(path, problem);
    super(decodeError.message);
    this.decodeError = decodeError;
  }
}

/**
 * How deep AnyValues may nest (a list in a list in ...). protobufjs stops
 * encoding and decoding past 100 message levels. The deepest AnyValue, in an
 * event's or a link's attribute, sits at level 3 + 3n when each level is a
 * key-value list, and an unset value inside it one level further: 31 keeps all
 * of that within 100, so both encodings accept the same documents and anything
 * accepted can be encoded again.
 */
export const maxValueNesting = 31;
