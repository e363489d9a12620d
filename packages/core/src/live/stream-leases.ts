import type { Clock } from "../shared/clock.port.js";
import { CellarError, ErrorCode } from "../shared/errors.js";
import { newId } from "../shared/ids.js";
import type { RandomSource } from "../shared/random.port.js";
import type { ChangeFeed } from "./change-feed.port.js";
import type { StreamLeaseRepository } from "./stream-lease-repository.port.js";

/** Event streams one account may hold open at once, on all instances together. */
export const MAX_STREAMS_PER_ACCOUNT = 20;

/**
 * How long a lease lasts without renewal: the streams of an instance that died stop
 * counting, and their readers stop being shown as present, within this.
 */
export const LEASE_TTL_MS = 60_000;

/** How often an instance renews the leases of the streams it holds (well within their TTL). */
export const LEASE_RENEW_MS = 20_000;

/**
 * The leases of the streams this instance holds: taken when a stream opens (refused past
 * the account's limit, counted over every instance), renewed together on one timer while
 * any is held, released when the stream ends. Each lease on a file taken or released is
 * announced on the feed, so that every stream of that file tells who is present now; each
 * renewal round also calls `onRound`, for readers to notice leases that expired unseen.
 */
export function createStreamLeases(deps: {
  leases: StreamLeaseRepository;
  feed: ChangeFeed;
  clock: Clock;
  random: RandomSource;
}) {
  const { leases, feed, clock, random } = deps;
  const held = new Set<string>();
  const rounds = new Set<() => void>();
  let timer: NodeJS.Timeout | undefined;

  async function renewAll(): Promise<void> {
    if (held.size > 0) {
      // A failed round is made good by the next, well before the leases expire.
      await leases
        .renew({ ids: [...held], expiresAt: new Date(clock.now().getTime() + LEASE_TTL_MS) })
        .catch(() => undefined);
    }
    for (const round of rounds) round();
  }

  return {
    /** Takes a lease for a stream of `userId` (on `fileId`, or their own with null), or throws `rate_limited`. */
    async take(input: { userId: string; fileId: string | null }): Promise<string> {
      const now = clock.now();
      const id = newId(random, "lease");
      const taken = await leases.acquire({
        lease: {
          id,
          userId: input.userId,
          fileId: input.fileId,
          openedAt: now,
          expiresAt: new Date(now.getTime() + LEASE_TTL_MS),
        },
        limit: MAX_STREAMS_PER_ACCOUNT,
        now,
      });
      if (!taken) {
        throw new CellarError(
          ErrorCode.rate_limited,
          `At most ${MAX_STREAMS_PER_ACCOUNT} event streams may be open at once per account; close one first.`,
          { retryAfterSeconds: 5 },
        );
      }
      held.add(id);
      if (timer === undefined) {
        timer = setInterval(() => void renewAll(), LEASE_RENEW_MS);
        timer.unref();
      }
      if (input.fileId !== null) feed.announce({ fileId: input.fileId, presence: true });
      return id;
    },
    /** Releases a lease taken here (its stream ended). */
    drop(id: string, fileId: string | null): void {
      if (!held.delete(id)) return;
      if (held.size === 0) {
        clearInterval(timer);
        timer = undefined;
      }
      // Should the release fail, the lease expires by itself within its TTL.
      void leases
        .release({ id })
        .then(() => {
          if (fileId !== null) feed.announce({ fileId, presence: true });
        })
        .catch(() => undefined);
    },
    /** Calls `listener` after each renewal round; returns the function that stops it. */
    onRound(listener: () => void): () => void {
      const subscription = () => listener();
      rounds.add(subscription);
      return () => rounds.delete(subscription);
    },
  };
}

export type StreamLeases = ReturnType<typeof createStreamLeases>;
