import { apiError, unwrap } from "@cellar/client";
import type { CommandSpec } from "../command-line.js";
import { writeConfig } from "../config.js";
import { CliError, EXIT } from "../exit-codes.js";
import { Prompter, readAll } from "../prompt.js";
import { checkedToken, clientFor, requireToken } from "../session.js";

/** The token of a sign-in link (`…/sign-in?token=…`), or the pasted text when it is the token itself. */
export function signInToken(pasted: string): string {
  const text = pasted.trim();
  if (/^https?:\/\//i.test(text)) {
    try {
      const token = new URL(text).searchParams.get("token");
      if (token) return token;
    } catch {
      // Not a URL after all: taken as the token below.
    }
    throw new CliError("That link has no token in it: paste the whole link from the mail.", EXIT.usage);
  }
  return text;
}

export const accountCommands: readonly CommandSpec[] = [
  {
    name: "login",
    args: [],
    description: "sign in: asks for your email, then for the link (or its token) from the mail",
    options: [
      { name: "email", value: "<address>", description: "the address to send the sign-in link to" },
      { name: "with-token", description: "read a session token (JWT) from stdin instead" },
    ],
    async run(context, { options }) {
      const { io, output } = context;
      const session = await context.session();
      let jwt: string;
      let email: string;
      if (options["with-token"] === true) {
        const given = (await readAll(io.stdin)).trim();
        if (given === "") throw new CliError("--with-token reads a token from stdin, and stdin was empty.", EXIT.usage);
        jwt = checkedToken(given, "What stdin held");
        email = (await unwrap(clientFor(io, session.server, jwt).api.GET("/users/me"))).email;
      } else {
        const prompter = await Prompter.open(io);
        try {
          const address = typeof options.email === "string" ? options.email : await prompter.ask("Email: ");
          await unwrap(session.client.api.POST("/sessions", { body: { email: address } }));
          const pasted = await prompter.ask(
            `A sign-in link is on its way to ${address}.\nPaste the link (or its token) here: `,
          );
          const verified = await unwrap(
            session.client.api.POST("/sessions/verify", { body: { token: signInToken(pasted) } }),
          );
          jwt = verified.jwt;
          email = verified.user.email;
        } finally {
          prompter.close();
        }
      }
      await writeConfig(io.env, { server: session.server, token: jwt, email });
      if (output.options.json) output.json({ server: session.server, email });
      else output.note(`Signed in to ${session.server} as ${email}.`);
    },
  },
  {
    name: "logout",
    args: [],
    description: "sign out: the server revokes the session, and it is forgotten here",
    async run(context) {
      const session = await context.session();
      const config = session.config;
      if (session.token === undefined) {
        context.output.note(`Not signed in to ${session.server}.`);
        return;
      }
      const { response } = await session.client.api.DELETE("/sessions");
      // 401: revoked or expired already; either way it is over.
      if (!response.ok && response.status !== 401) throw await apiError(response);
      if (config.server === session.server && config.token === session.token) {
        await writeConfig(context.io.env, { server: session.server });
      }
      context.output.note(`Signed out of ${session.server}.`);
    },
  },
  {
    name: "whoami",
    args: [],
    description: "who you are signed in as, and where",
    async run(context) {
      const session = await context.session();
      await requireToken(session);
      const me = await unwrap(session.client.api.GET("/users/me"));
      if (context.output.options.json) context.output.json({ ...me, server: session.server });
      else if (context.output.options.quiet) context.output.result(me.email);
      else context.output.result(`${me.email} (${me.name}) on ${session.server}`);
    },
  },
  {
    name: "set-name",
    args: ["<name>"],
    description: "change the name your account goes by",
    async run(context, { args: [name = ""] }) {
      const session = await context.session();
      await requireToken(session);
      const me = await unwrap(session.client.api.PATCH("/users/me", { body: { name } }));
      if (context.output.options.json) context.output.json(me);
      else context.output.note(`You are now ${me.name}.`);
    },
  },
];
