import type { ActivityService } from "../activity/activity.service.js";
import type { Compaction } from "../files/compaction.js";
import type { FileService } from "../files/file.service.js";
import type { VersionService } from "../versions/versions.service.js";

/** Orphan blobs younger than this are spared: their upload may still be in flight. */
export const ORPHAN_GRACE_MS = 3_600_000;

export interface MaintenanceReport {
  /** Files whose time in the trash ran out, deleted for good. */
  readonly purged: number;
  /** Blobs of purged files that could not be deleted: the orphan sweep takes them later. */
  readonly blobsLeft: number;
  /** Blobs no file refers to, removed. */
  readonly orphansRemoved: number;
  /** Activity entries older than their 90 days, deleted. */
  readonly activityPruned: number;
  /** Versions retention let go (neither current nor kept, old, not among the newest), deleted. */
  readonly versionsPruned: number;
  /** Files' contents of many pieces written again as one blob (`COMPACT_PIECES`). */
  readonly compacted: number;
  /** Expired sessions, access tokens, sign-in links, rate-limit windows, the leases of streams gone with their instance, and old webhook deliveries, forgotten. */
  readonly expired: {
    readonly sessions: number;
    readonly accessTokens: number;
    readonly magicLinks: number;
    readonly rateWindows: number;
    readonly streamLeases: number;
    /** Webhook deliveries done, and attempts, older than `WEBHOOK_RETENTION_DAYS`. */
    readonly webhookDeliveries: number;
  };
}

export interface Maintenance {
  /**
   * One maintenance cycle: purge the files due, then forget what has expired, activity
   * and versions past their retention, then sweep orphan blobs. A call while a cycle runs gets that
   * cycle's report instead of starting another. Safe to stop at any point (a crash mid-purge leaves only orphan blobs, which
   * the next sweep removes) and to run on several instances at once: each step is atomic
   * in storage.
   */
  run(): Promise<MaintenanceReport>;
}

export function createMaintenance(deps: {
  files: FileService;
  activity: Pick<ActivityService, "prune">;
  versions: Pick<VersionService, "pruneExpired">;
  compaction?: Pick<Compaction, "compactDue">;
  deleteExpired: () => Promise<MaintenanceReport["expired"]>;
  orphanGraceMs?: number;
}): Maintenance {
  const orphanGraceMs = deps.orphanGraceMs ?? ORPHAN_GRACE_MS;
  let running: Promise<MaintenanceReport> | undefined;
  const cycle = async (): Promise<MaintenanceReport> => {
    const purge = await deps.files.purgeDue();
    const expired = await deps.deleteExpired();
    const activityPruned = await deps.activity.prune();
    const versionsPruned = await deps.versions.pruneExpired();
    // Before the sweep: the blobs a compaction lets go, no version names, go in this cycle.
    const compacted = (await deps.compaction?.compactDue()) ?? 0;
    const orphans = await deps.files.sweepOrphanBlobs({ graceMs: orphanGraceMs });
    return { ...purge, orphansRemoved: orphans.removed, activityPruned, versionsPruned, compacted, expired };
  };
  return {
    run() {
      running ??= cycle().finally(() => {
        running = undefined;
      });
      return running;
    },
  };
}
