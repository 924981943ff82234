/**
 * The known names closest to a misspelled one, for "did you mean …?" in an
 * error: a setting's environment variable, a dataset's field. Close is a small
 * edit distance for the name's length (a third of it, at least two edits), or
 * one name starting with the other (a name cut short or run on).
 */
import { levenshteinDistance } from "../../evaluators/text/levenshtein-similarity.js";

/** Levenshtein distance between two names, by code point (the text metrics' own). */
function editDistance(left: string, right: string): number {
  return levenshteinDistance(Array.from(left), Array.from(right));
}

/** The names of `known` closest to `wanted`, best first, at most `limit`; none when nothing is close. */
export function closestNames(wanted: string, known: Iterable<string>, limit = 3): string[] {
  return [...new Set(known)]
    .map((name) => ({ name, distance: editDistance(wanted, name), contains: wanted.length >= 4 && (name.startsWith(wanted) || wanted.startsWith(name)) }))
    .filter((candidate) => candidate.distance <= Math.max(2, Math.floor(wanted.length / 3)) || candidate.contains)
    .sort((left, right) => left.distance - right.distance || left.name.localeCompare(right.name))
    .slice(0, limit)
    .map((candidate) => candidate.name);
}
