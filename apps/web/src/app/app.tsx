import { signal } from "@preact/signals";
import { Account } from "./account.js";
import { Files, Frame, SharedWithMe, Trash } from "./files.js";
import { FinishSignIn } from "./finish-sign-in.js";
import { navigate, route } from "./router.js";
import { token } from "./session.js";
import { SignIn } from "./sign-in.js";

type PreviewModule = typeof import("./preview/preview.js");

/** The preview and its grid, fetched the first time a file is opened: most visits never need them. */
const preview = signal<PreviewModule | "failed" | null>(null);
let previewRequested = false;
function loadPreview(): void {
  if (previewRequested) return;
  previewRequested = true;
  import("./preview/preview.js").then(
    (module) => {
      preview.value = module;
    },
    () => {
      previewRequested = false;
      preview.value = "failed";
    },
  );
}

export function App() {
  const path = route.value.pathname;
  if (path === "/sign-in") return <FinishSignIn />;
  if (token.value === null) return <SignIn />;
  if (path === "/trash") return <Trash />;
  if (path === "/shared") return <SharedWithMe />;
  if (path === "/account") return <Account />;
  const opened = /^\/files\/([^/]+)$/.exec(path)?.[1];
  if (opened !== undefined) {
    const loaded = preview.value;
    if (loaded !== null && loaded !== "failed") return <loaded.Preview id={decodeURIComponent(opened)} />;
    if (loaded === null) loadPreview();
    return (
      <Frame title="Opening…">
        {loaded === "failed" ? (
          <p role="alert">
            The preview could not be loaded: Cellar cannot be reached.{" "}
            <button type="button" onClick={() => (preview.value = null)}>
              Try again
            </button>
          </p>
        ) : (
          <p>Opening the file…</p>
        )}
      </Frame>
    );
  }
  if (path !== "/files") queueMicrotask(() => navigate("/files", { replace: true }));
  return <Files />;
}
