import { Account } from "./account.js";
import { Files, Trash } from "./files.js";
import { FinishSignIn } from "./finish-sign-in.js";
import { navigate, route } from "./router.js";
import { token } from "./session.js";
import { SignIn } from "./sign-in.js";

export function App() {
  const path = route.value.pathname;
  if (path === "/sign-in") return <FinishSignIn />;
  if (token.value === null) return <SignIn />;
  if (path === "/trash") return <Trash />;
  if (path === "/account") return <Account />;
  if (path !== "/files") queueMicrotask(() => navigate("/files", { replace: true }));
  return <Files />;
}
