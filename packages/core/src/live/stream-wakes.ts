import type { Credential, CredentialStates } from "../auth/credential.js";
import type { Clock } from "../shared/clock.port.js";

/** The longest a timer can wait (a session lasting longer is checked again then). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * When a stream reads again: after a notice (`wake`), once its credential's time is up
 * (a session's or an access token's), or after a delay (`next(ms)`). `pending` says
 * whether anything woke it since it last read; `sessionEnded` whether the wake may have
 * been the credential's end (its timer).
 */
export function createStreamWakes(clock: Clock) {
  let resolve: (() => void) | null = null;
  let expiry: NodeJS.Timeout | undefined;
  const wakes = {
    pending: true,
    sessionEnded: false,
    wake(): void {
      wakes.pending = true;
      const waiting = resolve;
      resolve = null;
      waiting?.();
    },
    /** Waits for a wake, or `ms` when given. */
    next(ms?: number): Promise<void> {
      return new Promise<void>((done) => {
        resolve = done;
        if (ms !== undefined) {
          setTimeout(() => {
            if (resolve === done) resolve = null;
            done();
          }, ms).unref();
        }
      });
    },
    /** A credential's end is a change too: the stream wakes then, finds it gone and ends. */
    async watchCredential(credentials: CredentialStates, credential: Credential | undefined): Promise<void> {
      const state = credential === undefined ? null : await credentials.expiry(credential);
      if (state === null || state.expiresAt === null) return;
      const ms = Math.min(MAX_TIMER_MS, Math.max(0, state.expiresAt.getTime() - clock.now().getTime()) + 1);
      expiry = setTimeout(() => {
        wakes.sessionEnded = true;
        wakes.wake();
      }, ms);
      expiry.unref();
    },
    /** Stops the credential's timer, and lets a waiting stream go on (to find itself closed). */
    stop(): void {
      clearTimeout(expiry);
      const waiting = resolve;
      resolve = null;
      waiting?.();
    },
  };
  return wakes;
}

/** Whether the credential named still holds (none named: yes). */
export async function credentialHolds(
  credentials: CredentialStates,
  credential: Credential | undefined,
): Promise<boolean> {
  return credential === undefined || (await credentials.expiry(credential)) !== null;
}
