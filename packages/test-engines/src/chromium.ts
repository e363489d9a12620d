import chromium from "@sparticuz/chromium";

/** Where a run's Chromium is, and how to start it. */
export interface ChromiumBinary {
  readonly executablePath: string;
  readonly args: readonly string[];
}

/**
 * The flags @sparticuz/chromium starts its browser with, less those that would make it a
 * browser unlike the users': web security off (no same-origin policy, so a CSP or CORS
 * mistake would pass unseen), mixed content allowed, site isolation off, and everything
 * in one process.
 */
const UNLIKE_A_USERS_BROWSER = new Set([
  "--disable-web-security",
  "--allow-running-insecure-content",
  "--disable-site-isolation-trials",
  "--single-process",
]);

/**
 * A real Chromium for the tests, from the npm registry: @sparticuz/chromium carries it
 * compressed and unpacks it once (into the system's temp folder, about 2 s); playwright-core
 * drives it (`chromium.launch({ executablePath, args })`).
 */
export async function unpackChromium(): Promise<ChromiumBinary> {
  const executablePath = await chromium.executablePath();
  const args = chromium.args.filter(
    (arg) => !UNLIKE_A_USERS_BROWSER.has(arg) && !arg.startsWith("--disable-features=IsolateOrigins"),
  );
  return { executablePath, args };
}
