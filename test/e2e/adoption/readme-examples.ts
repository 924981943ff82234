/**
 * The runnable examples of README.md: each fenced block preceded by
 * `<!-- file: NAME -->` is a whole program, written out verbatim by the
 * adoption test, so the README and the test cannot drift apart.
 */
import { readFile } from "node:fs/promises";

export async function readmeExamples(readmePath: string): Promise<Map<string, string>> {
  const text = await readFile(readmePath, "utf8");
  const examples = new Map<string, string>();
  for (const match of text.matchAll(/<!-- file: (\S+) -->\n```\w*\n([\s\S]*?)\n```/g)) examples.set(match[1]!, `${match[2]!}\n`);
  return examples;
}
