/**
 * The embedded engine (chDB) lets one process at a time hold a data folder; a
 * second one fails with the engine's own "Cannot lock file .../status". This
 * error says which process holds the folder — the engine writes its PID into
 * that status file — so the CLI can tell the user what to stop or change.
 */
import { readFileSync } from "node:fs";
import path from "node:path";

export class StoreLockedError extends Error {
  constructor(
    readonly dataPath: string,
    /** The holder's process id and command line, when they can be read. */
    readonly holder: { pid: number; command: string | null } | null,
    options: { cause: unknown },
  ) {
    super(`the data folder ${dataPath} is in use by ${holder === null ? "another process" : `process ${holder.pid}${holder.command ? ` (${holder.command})` : ""}`}`, options);
    this.name = "StoreLockedError";
  }
}

/** The process named in the engine's status file, if it still runs; null when none does (the lock failed for another reason). */
export function lockHolder(dataPath: string): { pid: number; command: string | null } | null {
  let status: string;
  try {
    status = readFileSync(path.join(dataPath, "status"), "utf8");
  } catch {
    return null;
  }
  const pid = Number(/^PID: (\d+)$/m.exec(status)?.[1]);
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid || !isRunning(pid)) return null;
  return { pid, command: commandLine(pid) };
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs under another user.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Linux's /proc; elsewhere the PID alone is shown. */
function commandLine(pid: number): string | null {
  try {
    const words = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter((word) => word !== "");
    return words.length === 0 ? null : words.map((word) => path.basename(word) === word || !word.startsWith("/") ? word : path.basename(word)).join(" ").slice(0, 200);
  } catch {
    return null;
  }
}
