import { authorizeFileAction } from "../files/file-access.js";
import type { FileRepository } from "../files/file-repository.port.js";
import type { Clock } from "../shared/clock.port.js";
import { type Page, toPage, toPageRequest } from "../shared/pagination.js";
import { ACTIVITY_RETENTION_DAYS, type ActivityItem } from "./activity.entity.js";
import type { ActivityRepository } from "./activity-repository.port.js";

const DAY_MS = 86_400_000;

export type ActivityService = ReturnType<typeof createActivityService>;

/** What happened to a file, for anyone who may see it; and forgetting what is old enough. */
export function createActivityService(deps: { files: FileRepository; activity: ActivityRepository; clock: Clock }) {
  return {
    /** One page of the file's activity, newest first, each entry with its actor. */
    async list(input: {
      callerId: string;
      fileId: string;
      page?: unknown;
      perPage?: unknown;
    }): Promise<Page<ActivityItem>> {
      const request = toPageRequest(input);
      const found = await deps.files.findWithRole({ id: input.fileId, userId: input.callerId });
      const { file } = authorizeFileAction("list_activity", found, input.callerId);
      const { items, total } = await deps.activity.listByFile({
        fileId: file.id,
        offset: request.offset,
        limit: request.perPage,
      });
      return toPage(request, items, total);
    },

    /**
     * Deletes the entries older than `ACTIVITY_RETENTION_DAYS`, `batchSize` at a time, and
     * says how many.
     */
    async prune(input: { batchSize?: number } = {}): Promise<number> {
      const batchSize = input.batchSize ?? 1000;
      const before = new Date(deps.clock.now().getTime() - ACTIVITY_RETENTION_DAYS * DAY_MS);
      let pruned = 0;
      for (;;) {
        const deleted = await deps.activity.prune({ before, limit: batchSize });
        pruned += deleted;
        if (deleted < batchSize) return pruned;
      }
    },
  };
}
