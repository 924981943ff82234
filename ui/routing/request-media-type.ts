/**
 * The media types a write endpoint of the UI takes, checked on the
 * Content-Type header before the body is read. A body under another type was
 * read as if it were the endpoint's own: a lineage sent as text/plain was
 * stored, and an XML review was refused as an empty form ("nothing to save").
 * Now it is 415 naming the types the endpoint takes (RFC 9110 §15.5.16).
 */

/** The media type of a Content-Type header, lower case, without its parameters; "" when there is none. */
export function mediaTypeOf(contentType: string | undefined): string {
  return (contentType ?? "").split(";", 1)[0]!.trim().toLowerCase();
}

/** null when the request's Content-Type is one of `accepted`, else why not, naming them. */
export function refusedMediaType(contentType: string | undefined, accepted: readonly string[], endpoint: string): string | null {
  const given = mediaTypeOf(contentType);
  if (accepted.includes(given)) return null;
  const named = accepted.length === 1 ? accepted[0]! : `${accepted.slice(0, -1).join(", ")} or ${accepted.at(-1)!}`;
  const sent = given === "" ? "no Content-Type" : `Content-Type ${given}`;
  return `${endpoint} takes ${named}, not a body sent with ${sent}: send it with Content-Type: ${accepted[0]!}`;
}
