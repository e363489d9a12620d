import { type RunningPostgres, startPostgres } from "./postgres.js";

interface SetupProject {
  provide(key: "postgresUrl", value: string): void;
}

/**
 * vitest's global setup: one PostgreSQL for the whole run, started here unless
 * `CELLAR_TEST_DATABASE_URL` names one (a superuser's URL: the tests create and drop
 * databases and schemas of their own in it), and stopped when the run ends.
 */
export default async function setup(project: SetupProject): Promise<() => Promise<void>> {
  const given = process.env.CELLAR_TEST_DATABASE_URL;
  let started: RunningPostgres | undefined;
  if (given === undefined || given === "") started = await startPostgres();
  project.provide("postgresUrl", given || (started?.url ?? ""));
  return async () => {
    await started?.stop();
  };
}
