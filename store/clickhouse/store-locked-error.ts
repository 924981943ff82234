/**
 * The embedded engine (chDB) lets one process at a time hold a data folder; a
 * second one fails with the engine's own "Cannot lock file .../status". This
 * error says which process holds the folder — the engine writes its PID into
 * that status file — so the CLI can tell the user what to stop or change.
 */
import { readFileSync, statSync } from "node:fs";
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

/**
 * The process holding the engine's lock on the folder, found before the engine is asked to open it: the engine
 * takes an exclusive flock on `status`, and on Linux /proc/locks lists every flock with its process and the file's
 * device and inode. Asked first, so that a second process is refused with our message alone — the engine, refused
 * the lock, prints its own "Code: 76 … Cannot lock file" line to stderr before it throws. Null when nothing holds
 * it, when this process does, or where /proc/locks cannot be read (the engine's own refusal then says it).
 */
export function heldLock(dataPath: string): { pid: number; command: string | null } | null {
  let inode: bigint;
  let device: bigint;
  let locks: string;
  try {
    const status = statSync(path.join(dataPath, "status"), { bigint: true });
    inode = status.ino;
    device = status.dev;
    locks = readFileSync("/proc/locks", "utf8");
  } catch {
    return null;
  }
  // glibc's makedev split: the minor number's low 8 bits, then the major's 12, then the rest of each.
  const major = ((device >> 8n) & 0xfffn) | ((device >> 32n) & ~0xfffn);
  const minor = (device & 0xffn) | ((device >> 12n) & ~0xffn);
  for (const line of locks.split("\n")) {
    // "1: FLOCK  ADVISORY  WRITE 6485 fe:00:9977972 0 EOF" (a blocked waiter's line has "->" after the number).
    const fields = /^\d+: (?:-> )?FLOCK\s+\S+\s+WRITE\s+(\d+)\s+([0-9a-f]+):([0-9a-f]+):(\d+)\s/.exec(line);
    if (fields === null || line.includes("->")) continue;
    const [, pid, lockMajor, lockMinor, lockInode] = fields;
    if (BigInt(lockInode!) !== inode || BigInt(`0x${lockMajor}`) !== major || BigInt(`0x${lockMinor}`) !== minor) continue;
    const holder = Number(pid);
    return holder === process.pid ? null : { pid: holder, command: commandLine(holder) };
  }
  return null;
}

/**
 * Linux's /proc; elsewhere the PID alone is shown. The program and its script
 * (`/usr/bin/node /app/node_modules/.bin/ragscope`) are shortened to their
 * names; the arguments are shown as given, since a shortened `--data-dir
 * /srv/ragscope` read as another folder (`--data-dir ragscope`).
 */
function commandLine(pid: number): string | null {
  try {
    const words = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter((word) => word !== "");
    // The script: the first word after the program that is not one of the program's options (node --max-old-space-size=… script).
    const script = words.findIndex((word, index) => index > 0 && !word.startsWith("-"));
    if (words.length === 0) return null;
    const command = words.map((word, index) => (index === 0 || index === script ? path.basename(word) : word)).join(" ");
    // Bounded, and visibly cut: a flag cut short ("--group-id embedded-f") would read as the whole value.
    return command.length <= 200 ? command : `${command.slice(0, 199)}…`;
  } catch {
    return null;
  }
}
