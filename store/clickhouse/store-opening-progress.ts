/**
 * Where the opening of a store stands while it takes time: the migrations of
 * an upgrade can run for minutes on a big store (a copy-and-swap migration
 * copies every row), and a collector starting beside another waits for the
 * migration lock meanwhile. A long-running process says this on its /readyz
 * (collector/wiring/observe/start-up-progress.ts) so that an operator, or a
 * probe's event, reads why the service is not ready rather than nothing.
 */
import type { MigrationLockHolder } from "./migration-lock.js";

export type StoreOpeningProgress =
  | { kind: "connecting" }
  | { kind: "waiting-for-migration-lock"; holder: MigrationLockHolder }
  /** `applied` of the `pending` migrations of this start are done; `next` runs now. */
  | { kind: "migrating"; applied: number; pending: number; next: string }
  | { kind: "creating-new-store" }
  | { kind: "repairing-rollups" }
  | { kind: "catching-up-rollups" };

export type StoreOpeningProgressListener = (progress: StoreOpeningProgress) => void;

export function describeStoreOpeningProgress(progress: StoreOpeningProgress): string {
  switch (progress.kind) {
    case "connecting":
      return "opening the store";
    case "waiting-for-migration-lock":
      // No "last heard …": the wait is told when it starts and when its holder changes, so a time would go stale.
      return `store migrations waiting for the migration lock, which ${progress.holder.owner} holds`;
    case "migrating":
      return `store migrations running: ${progress.applied} of ${progress.pending} applied, applying ${progress.next}`;
    case "creating-new-store":
      return "creating a new store";
    case "repairing-rollups":
      return "store rollups: recomputing the minutes an upgrade asked for";
    case "catching-up-rollups":
      return "store rollups: refreshing what a stopped process left behind";
  }
}
