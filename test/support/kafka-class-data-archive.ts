/**
 * Application class-data sharing (AppCDS) for the broker JVM: the first broker
 * that stops gracefully leaves an archive of the classes it loaded, and every
 * later start maps it instead of loading ~45 jars' classes again. Measured
 * here: "Kafka Server started" after ~1.1-1.3 s instead of ~2.0-2.5 s; the one
 * JVM that writes the archive takes ~2 s longer to exit. Kafka's JVM Docker
 * image does the same (docker/jvm/jsa_launch).
 *
 * Best-effort throughout: the archive lives next to the jars it describes
 * (<libs>/broker.jsa, replaced with them by fetch-jars.sh), and a JVM that finds
 * it unusable (other JDK build, changed jars) says so and starts without it.
 */
import { copyFile, rename, rm, stat } from "node:fs/promises";
import { existsSync } from "node:fs";
import { randomBytes } from "node:crypto";
import path from "node:path";

const archiveName = "broker.jsa";

function sharedArchive(libsDirectory: string): string {
  return path.join(libsDirectory, archiveName);
}

function runArchive(runDirectory: string): string {
  return path.join(runDirectory, archiveName);
}

/** JVM flags: use the shared archive when there is one, else record one at exit. */
export function classDataSharingArguments(libsDirectory: string, runDirectory: string): string[] {
  // CDS reports every class it cannot archive as a warning; keep broker.log readable.
  const quiet = "-Xlog:cds*=error,class+path=error";
  const shared = sharedArchive(libsDirectory);
  if (existsSync(shared)) return [`-XX:SharedArchiveFile=${shared}`, quiet];
  return [`-XX:ArchiveClassesAtExit=${runArchive(runDirectory)}`, quiet];
}

/**
 * After a graceful exit, moves the archive the JVM wrote into the libs folder,
 * unless another broker got there first. Copy to a unique name, then rename:
 * a concurrently starting JVM sees either no archive or a whole one.
 * Call only when the JVM exited by itself (an archive cut short by SIGKILL is
 * never published).
 */
export async function publishClassDataArchive(libsDirectory: string, runDirectory: string): Promise<void> {
  const written = runArchive(runDirectory);
  const shared = sharedArchive(libsDirectory);
  const staging = `${shared}.${process.pid}-${randomBytes(4).toString("hex")}`;
  try {
    if (existsSync(written) && !existsSync(shared) && (await stat(written)).size > 0) {
      await copyFile(written, staging);
      await rename(staging, shared);
    }
  } catch {
    // A read-only or full libs folder only costs the speed-up.
    await rm(staging, { force: true }).catch(() => {});
  } finally {
    await rm(written, { force: true }).catch(() => {});
  }
}
