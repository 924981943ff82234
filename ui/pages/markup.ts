/**
 * The `html` template tag every page is written with: hono/html's, which escapes each interpolated value, and
 * before that shows the control and bidirectional formatting characters of interpolated text by their code
 * (core/control-characters.ts), since what the pages show is mostly what a sender's spans carried. Shown where the
 * reviewer reads the text — as a marked `<span class=control-character>\u202E</span>` in element content, as the
 * bare code in a `title` tooltip and in the `<title>` element, which hold no markup — and kept as they are where the
 * value goes back to the server or to a script: other attribute values (a form's value, an option's value, data-*)
 * and a textarea's content (a reviewer's comment as they typed it).
 */
import { html as escapedHtml, raw } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";
import { withControlCharactersShown, controlCharactersAsCodes } from "../../core/control-characters.js";

/** Applied in HTML they are white space, and a `<pre>` needs them. */
const KEPT = "\t\n\r";

/** Where in the template a value is interpolated. */
type Place = "text" | "plain-text" | "as-sent";

/** Without quotes: were a value ever taken for text inside an attribute, this would read as text there, not end it. */
const MARKED = (code: string) => raw(`<span class=control-character>${code}</span>`);

/** Each template's places, computed once per template (its strings array is the same object at every call). */
const placesOfTemplate = new WeakMap<TemplateStringsArray, Place[]>();

function placesOf(strings: TemplateStringsArray): Place[] {
  const known = placesOfTemplate.get(strings);
  if (known !== undefined) return known;
  const places: Place[] = [];
  let before = "";
  for (let index = 0; index < strings.length - 1; index += 1) {
    // Escaped values hold no < or >, so the template's own text alone says whether a value sits inside a tag.
    before += strings[index];
    places.push(placeAfter(before));
  }
  placesOfTemplate.set(strings, places);
  return places;
}

function placeAfter(before: string): Place {
  const tagStart = before.lastIndexOf("<");
  if (tagStart > before.lastIndexOf(">")) {
    const attribute = /([^\s"'=<>/]+)\s*=\s*"[^"]*$/.exec(before.slice(tagStart))?.[1];
    return attribute?.toLowerCase() === "title" ? "plain-text" : "as-sent";
  }
  const element = /<(title|textarea|script|style)\b[^>]*>[^<]*$/i.exec(before)?.[1]?.toLowerCase();
  if (element === "title") return "plain-text";
  return element === undefined ? "text" : "as-sent";
}

function shownAt(place: Place, value: unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => shownAt(place, item));
  if (typeof value !== "string" || place === "as-sent") return value;
  if (place === "plain-text") return controlCharactersAsCodes(value, KEPT);
  const parts = withControlCharactersShown(value, KEPT, MARKED);
  return parts.length === 1 ? parts[0] : parts;
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): HtmlEscapedString | Promise<HtmlEscapedString> {
  const places = placesOf(strings);
  return escapedHtml(strings, ...values.map((value, index) => shownAt(places[index]!, value)));
}

export { raw };
