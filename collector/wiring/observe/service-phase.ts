/**
 * Where a long-running process stands, as its /readyz answers it. The observe
 * server listens from the first moment to the last, so that /healthz (liveness)
 * answers all along and only /readyz changes:
 * - starting: 503 naming the step the start is at — opening the store, "store
 *   migrations running: 3 of 12 applied, applying 0034_…", joining the group.
 *   The migrations of an upgrade can take minutes on a big store; a process
 *   that answered nothing meanwhile was killed by its liveness probe and
 *   started the migration over, again and again;
 * - running: 200 when every check of the roles passes, else 503 listing them;
 * - draining: after SIGTERM, while the process writes what it holds: 503
 *   "draining: …" so a load balancer stops sending it requests, while /healthz
 *   keeps answering until the process exits (a probe killing a draining
 *   process would cut its last writes).
 */
import type { ReadinessCheck } from "./observe-server.js";

export type ServicePhase =
  | { kind: "starting"; step: string }
  | { kind: "running"; checks: readonly ReadinessCheck[] }
  | { kind: "draining"; reason: string };

export interface PhaseAnswer {
  ready: boolean;
  /** One line per check, `name: problem` or `name: ok`. */
  body: string;
}

export type CheckRunner = (checks: readonly ReadinessCheck[]) => Promise<{ name: string; problem: string | null }[]>;

/** What /readyz says in `phase`; checks run only while running (a start or a drain has nothing to check yet, or any more). */
export async function answerReadiness(phase: ServicePhase, runChecks: CheckRunner): Promise<PhaseAnswer> {
  if (phase.kind === "starting") return { ready: false, body: `start-up: ${phase.step}\n` };
  if (phase.kind === "draining") return { ready: false, body: `draining: ${phase.reason}\n` };
  const results = await runChecks(phase.checks);
  return {
    ready: results.every((result) => result.problem === null),
    body: results.map((result) => `${result.name}: ${result.problem ?? "ok"}`).join("\n") + "\n",
  };
}
