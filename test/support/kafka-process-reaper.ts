/**
 * Makes sure a broker JVM never outlives the Node process that started it.
 *
 * Three layers, because each covers a way of dying the others miss:
 * 1. process "exit": SIGKILL the JVM and delete its run directory, synchronously
 *    (an exit handler cannot wait). Covers normal exits, process.exit() and
 *    uncaught exceptions.
 * 2. SIGINT, SIGTERM, SIGHUP: do the same, then re-raise the signal when nobody
 *    else listens for it, so the default "terminate" behaviour is kept.
 *    (The JVM is spawned in our process group, so a Ctrl-C in a terminal
 *    reaches it directly too.)
 * 3. A detached shell watchdog polling both pids once a second: it is the only
 *    layer that survives a SIGKILL of Node itself (no handler runs then).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { rmSync } from "node:fs";

interface TrackedBroker {
  readonly child: ChildProcess;
  readonly runDirectory: string;
}

const tracked = new Set<TrackedBroker>();
let handlersInstalled = false;

function reapAll(): void {
  for (const entry of tracked) {
    if (entry.child.exitCode === null && entry.child.signalCode === null) entry.child.kill("SIGKILL");
    rmSync(entry.runDirectory, { recursive: true, force: true });
  }
  tracked.clear();
}

function installHandlers(): void {
  if (handlersInstalled) return;
  handlersInstalled = true;
  process.on("exit", reapAll);
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.once(signal, () => {
      reapAll();
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    });
  }
}

// $1 parent pid, $2 broker pid, $3 run directory. Exits by itself once the broker is gone.
// The broker counts as orphaned when the parent is gone or is no longer its
// parent: the kernel reparents the broker as soon as the parent dies, while the
// dead parent may linger as an unreaped zombie that "kill -0" still finds
// (hence alive(), which counts zombies as dead).
const watchdogScript = `
alive() {
  kill -0 "$1" 2>/dev/null || return 1
  case "$(ps -o stat= -p "$1" 2>/dev/null)" in Z*) return 1 ;; esac
}
orphaned() {
  alive "$1" || return 0
  current_parent=$(ps -o ppid= -p "$2" 2>/dev/null | tr -d ' ')
  [ -n "$current_parent" ] && [ "$current_parent" != "$1" ]
}
while alive "$2"; do
  if orphaned "$1" "$2"; then
    kill -TERM "$2" 2>/dev/null
    for _ in 1 2 3 4 5 6 7 8 9 10; do alive "$2" || break; sleep 1; done
    kill -KILL "$2" 2>/dev/null
    rm -rf "$3"
    exit 0
  fi
  sleep 1
done
`;

function startWatchdog(child: ChildProcess, runDirectory: string): void {
  if (child.pid === undefined) return;
  const watchdog = spawn("/bin/sh", ["-c", watchdogScript, "kafka-broker-watchdog", String(process.pid), String(child.pid), runDirectory], {
    detached: true,
    stdio: "ignore",
  });
  watchdog.on("error", () => {
    // Layers 1 and 2 still apply; a missing /bin/sh only loses the SIGKILL case.
  });
  watchdog.unref();
}

/**
 * Registers a running broker JVM. The returned function unregisters it; call it
 * once the JVM has exited (the run directory is then the caller's to delete or keep).
 */
export function reapOnParentExit(child: ChildProcess, runDirectory: string): () => void {
  installHandlers();
  const entry: TrackedBroker = { child, runDirectory };
  tracked.add(entry);
  startWatchdog(child, runDirectory);
  return () => {
    tracked.delete(entry);
  };
}
