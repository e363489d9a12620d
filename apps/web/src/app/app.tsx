import { Files } from "./files.js";
import { token } from "./session.js";
import { SignIn } from "./sign-in.js";

export function App() {
  return token.value === null ? <SignIn /> : <Files />;
}
