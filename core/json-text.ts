/**
 * Parses a whole file's text as JSON, strictly. Files named `.json` are read
 * this way rather than as YAML (which accepts JSON too), so that what JSON
 * refuses — a trailing comma, a comment, a single quote — is refused here as
 * well, and not found later by another tool reading the same file. The error
 * names the line and column, which JSON.parse gives only as a character position.
 */
import { failure, success, type Result } from "./result.js";

export interface JsonTextProblem {
  /** JSON.parse's words, without its position. */
  message: string;
  /** 1-based; null when the parser gave no position (a text cut off is placed at its end). */
  line: number | null;
  column: number | null;
}

export function parseJsonText(text: string): Result<unknown, JsonTextProblem> {
  try {
    return success(JSON.parse(text) as unknown);
  } catch (error) {
    const message = (error as Error).message;
    const position = /at position (\d+)/.exec(message);
    const words = message.replace(/\s*\(?(?:in JSON )?at position \d+(?: \(line \d+ column \d+\))?\)?/, "").trim();
    if (position === null) {
      if (!/end of JSON input/.test(message)) return failure({ message: words, line: null, column: null });
      // The text stops before the document ends: the problem is at its end.
      const lines = text.split("\n");
      return failure({ message: words, line: lines.length, column: lines[lines.length - 1]!.length + 1 });
    }
    const before = text.slice(0, Number(position[1]));
    const lineStart = before.lastIndexOf("\n") + 1;
    return failure({ message: words, line: before.split("\n").length, column: before.length - lineStart + 1 });
  }
}

/** "line 3 column 1: Expected double-quoted property name" — the words a problem line carries. */
export function describeJsonTextProblem(problem: JsonTextProblem): string {
  return problem.line === null ? problem.message : `line ${problem.line} column ${problem.column}: ${problem.message}`;
}
