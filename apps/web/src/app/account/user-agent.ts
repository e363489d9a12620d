/**
 * A session's `User-Agent` in a few words ("Firefox on Windows"), for the list of where
 * you are signed in: a handful of patterns, no library. What they do not recognise is
 * shown as it came, shortened.
 */

/** Browsers and programs, the first that matches naming it: Edge and Opera say "Chrome" too, Chrome says "Safari". */
const BROWSERS: readonly (readonly [RegExp, string])[] = [
  [/\bEdg(e|A|iOS)?\//, "Edge"],
  [/\b(OPR|Opera)\//, "Opera"],
  [/\bSamsungBrowser\//, "Samsung Internet"],
  [/\b(Firefox|FxiOS)\//, "Firefox"],
  [/\bCriOS\//, "Chrome"],
  [/\bHeadlessChrome\//, "Chrome (headless)"],
  [/\b(Chrome|Chromium)\//, "Chrome"],
  [/\bVersion\/[\d.]+.*\bSafari\//, "Safari"],
  [/^curl\//, "curl"],
  [/^node$|^undici\b/, "Node.js"],
];

/** Systems, in the same way: an iPhone says "Mac OS X", Android says "Linux". */
const SYSTEMS: readonly (readonly [RegExp, string])[] = [
  [/\biPhone\b/, "iPhone"],
  [/\biPad\b/, "iPad"],
  [/\bAndroid\b/, "Android"],
  [/\bCrOS\b/, "ChromeOS"],
  [/\bWindows\b/, "Windows"],
  [/\b(Macintosh|Mac OS X)\b/, "macOS"],
  [/\bLinux\b/, "Linux"],
];

/** How much of an unrecognised agent is shown. */
export const SHOWN_CHARACTERS = 60;

const firstMatch = (text: string, patterns: readonly (readonly [RegExp, string])[]) =>
  patterns.find(([pattern]) => pattern.test(text))?.[1];

/** "Chrome on Linux", "Safari on iPhone", "curl"; the agent itself, shortened, when neither is known. */
export function deviceOf(userAgent: string | null): string {
  const agent = userAgent?.trim() ?? "";
  if (agent === "") return "An unknown browser";
  const browser = firstMatch(agent, BROWSERS);
  const system = firstMatch(agent, SYSTEMS);
  if (browser !== undefined) return system === undefined ? browser : `${browser} on ${system}`;
  if (system !== undefined) return `A browser on ${system}`;
  return agent.length > SHOWN_CHARACTERS ? `${agent.slice(0, SHOWN_CHARACTERS - 1)}…` : agent;
}
