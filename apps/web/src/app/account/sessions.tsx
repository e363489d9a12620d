import type { Session } from "@cellar/client";
import { useSignal } from "@preact/signals";
import { LogOut } from "lucide-preact";
import { useEffect, useRef } from "preact/hooks";
import { messageOf } from "../messages.js";
import { navigate } from "../router.js";
import { client, endIfRefused, keepToken, signedOut } from "../session.js";
import { say } from "../toast.js";
import { deviceOf } from "./user-agent.js";
import { listOf, whenText } from "./words.js";

/**
 * Where you are signed in (`GET /sessions`, newest first): each session's browser and
 * system, when it signed in and was last used, this device marked; any of them signed out
 * (`DELETE /sessions/:id`), refused from then on by every server. Signing out this one
 * goes to the sign-in page, as the header's Sign out does.
 */
export function SessionsSection() {
  const sessions = useSignal<readonly Session[] | null>(null);
  const problem = useSignal<string | null>(null);
  const ending = useSignal<string | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);

  async function load() {
    try {
      sessions.value = await listOf(client.value.sessions.list());
      problem.value = null;
    } catch (error) {
      if (!endIfRefused(error)) problem.value = messageOf(error);
    }
  }
  useEffect(() => {
    load();
  }, []);

  async function end(session: Session) {
    ending.value = session.id;
    try {
      await client.value.sessions.end(session.id);
      if (session.current) {
        signedOut.value = true;
        keepToken(null);
        navigate("/", { replace: true });
        return;
      }
      say(`Signed out ${deviceOf(session.user_agent)}.`, "success");
      // The button that had focus goes with its row: the section's heading keeps the reader's place.
      heading.current?.focus();
      await load();
    } catch (error) {
      problem.value = messageOf(error);
    } finally {
      ending.value = null;
    }
  }

  const list = sessions.value;
  return (
    <section class="card account-section" aria-labelledby="sessions-title">
      <h2 id="sessions-title" ref={heading} tabIndex={-1}>
        Sessions
      </h2>
      <p class="muted">Where you are signed in. Signing a session out ends it at once: its next request is refused.</p>
      {problem.value !== null && (
        <p role="alert" class="notice error">
          {problem.value}
        </p>
      )}
      {list === null ? (
        problem.value === null && <p class="muted">Loading…</p>
      ) : (
        <ul class="account-list" aria-labelledby="sessions-title">
          {list.map((session) => {
            const device = deviceOf(session.user_agent);
            const signedIn = whenText(session.created_at, "—");
            return (
              <li key={session.id}>
                <span class="what">
                  <span class="name-line">
                    <strong title={session.user_agent ?? undefined}>{device}</strong>
                    {session.current && <span class="badge">This device</span>}
                  </span>
                  <span class="muted">
                    Signed in {signedIn} · Last used {whenText(session.last_used_at, "not yet")}
                  </span>
                </span>
                <button
                  type="button"
                  class="danger"
                  aria-label={session.current ? "Sign out this device" : `Sign out ${device}, signed in ${signedIn}`}
                  disabled={ending.value !== null}
                  onClick={() => end(session)}
                >
                  <LogOut />
                  Sign out
                </button>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
