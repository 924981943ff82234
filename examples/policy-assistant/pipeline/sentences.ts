/**
 * Sentence splitting for the extractive generator: a sentence ends at 。！？；
 * (or their ASCII forms) or at a full stop followed by whitespace or the end,
 * so "3.5" inside a sentence does not split it. The ending mark stays with its
 * sentence, so every sentence is a verbatim substring of its chunk.
 */
const CLOSING_MARKS: ReadonlySet<string> = new Set(["。", "！", "？", "；", "!", "?", ";"]);

export function splitSentences(text: string): string[] {
  const sentences: string[] = [];
  const characters = Array.from(text);
  let current = "";
  characters.forEach((character, index) => {
    current += character;
    const next = characters[index + 1];
    const fullStop = character === "." && (next === undefined || /\s/u.test(next));
    if (CLOSING_MARKS.has(character) || fullStop) {
      if (current.trim() !== "") sentences.push(current.trim());
      current = "";
    }
  });
  if (current.trim() !== "") sentences.push(current.trim());
  return sentences;
}
