/**
 * A command's error lines as the CLI prints its errors: each headline starts
 * `ragscope <command>: `, so a line in a CI log says which command refused
 * and why, among the output of others. Indented lines are the details of the
 * headline above them (a dataset's problems, a gate file's), and a line that
 * already names its command (a shared helper wrote it) stays as it is.
 */
export function commandErrorLines(command: string, lines: readonly string[]): string[] {
  const prefix = `ragscope ${command}: `;
  return lines.map((line) => (/^\s/.test(line) || line.startsWith("ragscope ") ? line : `${prefix}${line}`));
}
