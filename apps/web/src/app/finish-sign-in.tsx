import { CellarApiError, unwrap } from "@cellar/client";
import { useSignal } from "@preact/signals";
import { Brand } from "./brand.js";
import { messageOf } from "./messages.js";
import { navigate, route } from "./router.js";
import { client, keepToken, sessionEnded, signedOut } from "./session.js";

/**
 * Where the mailed link lands (`/sign-in?token=…`). Opening it spends nothing — a mail
 * scanner following links cannot use it up; one press exchanges the token for a session.
 */
export function FinishSignIn() {
  const token = route.value.searchParams.get("token");
  const error = useSignal<string | null>(token ? null : "This link has no sign-in token in it.");
  const busy = useSignal(false);

  async function signIn() {
    busy.value = true;
    error.value = null;
    try {
      const session = await unwrap(client.value.api.POST("/sessions/verify", { body: { token: token ?? "" } }));
      signedOut.value = false;
      sessionEnded.value = false;
      keepToken(session.jwt);
      // The token leaves the address bar and the history.
      navigate("/files", { replace: true });
    } catch (caught) {
      error.value =
        caught instanceof CellarApiError && caught.code === "invalid_token"
          ? "This link has expired or was already used."
          : messageOf(caught);
    } finally {
      busy.value = false;
    }
  }

  return (
    <main class="narrow">
      <Brand />
      <div class="card">
        <h1>Sign in to Cellar</h1>
        {token && <p>Press the button to finish signing in on this device.</p>}
        {token && (
          <button type="button" class="primary wide-button" onClick={signIn} disabled={busy.value}>
            {busy.value ? "Signing in…" : "Sign in"}
          </button>
        )}
        {error.value !== null && (
          <p role="alert" class="notice error">
            <span>
              {error.value}{" "}
              <a
                href="/"
                onClick={(event) => {
                  event.preventDefault();
                  navigate("/", { replace: true });
                }}
              >
                Ask for a new link
              </a>
              .
            </span>
          </p>
        )}
      </div>
    </main>
  );
}
