import { describe, expect, it } from "vitest";
import { deviceOf, SHOWN_CHARACTERS } from "../src/app/account/user-agent.js";

describe("a session's device, from its User-Agent", () => {
  it("names the browser and the system of the usual browsers", () => {
    const cases: readonly (readonly [string, string])[] = [
      [
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
        "Chrome on Windows",
      ],
      [
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0",
        "Edge on Windows",
      ],
      ["Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0", "Firefox on Linux"],
      [
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15",
        "Safari on macOS",
      ],
      [
        "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
        "Safari on iPhone",
      ],
      [
        "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/131.0.6778.73 Mobile/15E148 Safari/604.1",
        "Chrome on iPhone",
      ],
      [
        "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36",
        "Chrome on Android",
      ],
      [
        "Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/26.0 Chrome/122.0.0.0 Mobile Safari/537.36",
        "Samsung Internet on Android",
      ],
      [
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 OPR/115.0.0.0",
        "Opera on Windows",
      ],
      [
        "Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
        "Chrome on ChromeOS",
      ],
      [
        "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/141.0.0.0 Safari/537.36",
        "Chrome (headless) on Linux",
      ],
    ];
    for (const [agent, device] of cases) expect(deviceOf(agent), agent).toBe(device);
  });

  it("names programs: curl, and Node.js (the command line's fetch says only `node`)", () => {
    expect(deviceOf("curl/8.5.0")).toBe("curl");
    expect(deviceOf("node")).toBe("Node.js");
  });

  it("says so when there was none, and shows an agent it does not know as it came, shortened", () => {
    expect(deviceOf(null)).toBe("An unknown browser");
    expect(deviceOf("   ")).toBe("An unknown browser");
    expect(deviceOf("Mozilla/5.0 (X11; Linux x86_64) Unknown/1.0")).toBe("A browser on Linux");
    expect(deviceOf("python-requests/2.32.3")).toBe("python-requests/2.32.3");
    const long = `SomeBot/1.0 ${"x".repeat(200)}`;
    const shown = deviceOf(long);
    expect(shown).toHaveLength(SHOWN_CHARACTERS);
    expect(shown.endsWith("…")).toBe(true);
    expect(long.startsWith(shown.slice(0, -1))).toBe(true);
  });
});
