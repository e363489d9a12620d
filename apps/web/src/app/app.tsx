import { Files } from "./files.js";
import { FinishSignIn } from "./finish-sign-in.js";
import { route } from "./router.js";
import { token } from "./session.js";
import { SignIn } from "./sign-in.js";

export function App() {
  if (route.value.pathname === "/sign-in") return <FinishSignIn />;
  return token.value === null ? <SignIn /> : <Files />;
}
