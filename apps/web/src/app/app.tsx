import { signal } from "@preact/signals";
import { Files, Frame, SharedWithMe, Trash } from "./files.js";
import { FinishSignIn } from "./finish-sign-in.js";
import { navigate, route } from "./router.js";
import { token } from "./session.js";
import { SignIn } from "./sign-in.js";

/**
 * A page's module, fetched the first time the page is shown: most visits never need it
 * (the preview and its grid; the account page and its sessions and tokens).
 */
function lazyPage<Module>(load: () => Promise<Module>) {
  const loaded = signal<Module | "failed" | null>(null);
  let requested = false;
  return {
    /** The module once it is here, "failed" when it could not be fetched; asks for it the first time. */
    get(): Module | "failed" | null {
      const now = loaded.value;
      if (now === null && !requested) {
        requested = true;
        load().then(
          (module) => {
            loaded.value = module;
          },
          () => {
            requested = false;
            loaded.value = "failed";
          },
        );
      }
      return now;
    },
    retry(): void {
      loaded.value = null;
    },
  };
}

const preview = lazyPage(() => import("./preview/preview.js"));
const account = lazyPage(() => import("./account.js"));

/** The frame while a page's module is fetched, or why it could not be. */
function Fetching(props: { title: string; what: string; opening: string; failed: boolean; retry: () => void }) {
  return (
    <Frame title={props.title}>
      {props.failed ? (
        <p role="alert">
          The {props.what} could not be loaded: Cellar cannot be reached.{" "}
          <button type="button" onClick={props.retry}>
            Try again
          </button>
        </p>
      ) : (
        <p>{props.opening}</p>
      )}
    </Frame>
  );
}

export function App() {
  const path = route.value.pathname;
  if (path === "/sign-in") return <FinishSignIn />;
  if (token.value === null) return <SignIn />;
  if (path === "/trash") return <Trash />;
  if (path === "/shared") return <SharedWithMe />;
  if (path === "/account") {
    const loaded = account.get();
    if (loaded !== null && loaded !== "failed") return <loaded.Account />;
    return (
      <Fetching
        title="Account"
        what="account page"
        opening="Opening your account…"
        failed={loaded === "failed"}
        retry={account.retry}
      />
    );
  }
  const opened = /^\/files\/([^/]+)$/.exec(path)?.[1];
  if (opened !== undefined) {
    const loaded = preview.get();
    if (loaded !== null && loaded !== "failed") return <loaded.Preview id={decodeURIComponent(opened)} />;
    return (
      <Fetching
        title="Opening…"
        what="preview"
        opening="Opening the file…"
        failed={loaded === "failed"}
        retry={preview.retry}
      />
    );
  }
  if (path !== "/files") queueMicrotask(() => navigate("/files", { replace: true }));
  return <Files />;
}
