/**
 * A file named on the command line or in a setting that cannot be read or
 * written, said in one sentence: which file (as the user typed it), what is
 * wrong with it, and how to fix it — the same words for every command
 * (README "Exit codes": an unreadable file is exit 2, a usage error, not a
 * dataset or gate with problems). Node's error codes are mapped here, at the
 * edge: ENOENT and ENOTDIR (nothing there), EISDIR (a folder), EACCES and
 * EPERM (permission), EROFS (a read-only file system).
 *
 * `readableFile` and `writableFile` check a path before a command does its
 * work, so a report or a run is not computed only to fail at its last step
 * (root reads and writes anything: its checks pass where a file exists).
 */
import { constants } from "node:fs";
import { access, stat } from "node:fs/promises";
import path from "node:path";
import { failure, success, type Result } from "./result.js";

const codeOf = (error: unknown) => (error as NodeJS.ErrnoException | null)?.code;
const detailOf = (error: unknown) => (codeOf(error) ?? (error instanceof Error ? error.message.split("\n")[0] : String(error)));

/**
 * @param file the path as given
 * @param kind what the file is for the command, e.g. "dataset file", "gate file", "task module"
 */
export function describeUnreadableFile(file: string, error: unknown, kind: string): string {
  const looked = `(looked in ${path.resolve(file)})`;
  switch (codeOf(error)) {
    case "ENOENT":
      return `${file}: ${kind} not found ${looked}; check the path`;
    case "ENOTDIR":
      return `${file}: ${kind} not found: a part of the path is a file, not a folder ${looked}; check the path`;
    case "EISDIR":
      return `${file}: is a folder, not a ${kind}; name the file itself`;
    case "EACCES":
    case "EPERM":
      return `${file}: ${kind} cannot be read: permission denied for the user running ragscope; give it read permission on the file and its folders (chmod, chown), or name a copy it can read`;
    default:
      return `${file}: ${kind} cannot be read (${detailOf(error)}); check the path`;
  }
}

/**
 * @param example a file name to suggest inside a folder given where a file was meant, e.g. "report.html"
 */
export function describeUnwritableFile(file: string, error: unknown, kind: string, example?: string): string {
  switch (codeOf(error)) {
    case "EISDIR":
      return `${file}: is a folder, not a ${kind}; name a file${example === undefined ? "" : `, e.g. ${path.join(file, example)}`}`;
    case "ENOTDIR":
    case "EEXIST":
      return `${file}: the ${kind} cannot be written: a part of its path is a file, not a folder (${path.resolve(file)}); name another path`;
    case "EACCES":
    case "EPERM":
      return `${file}: the ${kind} cannot be written: permission denied for the user running ragscope; give it write permission on the folder (chmod, chown), or name another path`;
    case "EROFS":
      return `${file}: the ${kind} cannot be written: the file system is read-only; name a path on a writable one`;
    default:
      return `${file}: the ${kind} cannot be written (${detailOf(error)}); name another path`;
  }
}

/** The file can be opened for reading: it exists, is not a folder, and this user may read it. */
export async function readableFile(file: string, kind: string): Promise<Result<void, string>> {
  try {
    if ((await stat(file)).isDirectory()) return failure(describeUnreadableFile(file, Object.assign(new Error("is a folder"), { code: "EISDIR" }), kind));
    await access(file, constants.R_OK);
    return success(undefined);
  } catch (error) {
    return failure(describeUnreadableFile(file, error, kind));
  }
}

/**
 * The file can be written: an existing one is a file this user may write; a new one's nearest existing folder
 * is a folder this user may write into (the folders between are created when it is written).
 */
export async function writableFile(file: string, kind: string, example?: string): Promise<Result<void, string>> {
  const fail = (code: string) => failure(describeUnwritableFile(file, Object.assign(new Error(code), { code }), kind, example));
  let existing = path.resolve(file);
  for (;;) {
    try {
      const found = await stat(existing);
      if (existing === path.resolve(file)) {
        if (found.isDirectory()) return fail("EISDIR");
        await access(existing, constants.W_OK);
        return success(undefined);
      }
      if (!found.isDirectory()) return fail("ENOTDIR");
      await access(existing, constants.W_OK | constants.X_OK);
      return success(undefined);
    } catch (error) {
      const code = codeOf(error);
      if (code === "ENOENT" && path.dirname(existing) !== existing) {
        existing = path.dirname(existing);
        continue;
      }
      return failure(describeUnwritableFile(file, error, kind, example));
    }
  }
}
