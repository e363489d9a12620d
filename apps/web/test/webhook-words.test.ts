import { describe, expect, it } from "vitest";
import {
  ALL_KINDS,
  delivered,
  EVENT_KINDS,
  eventsText,
  firstOf,
  MOST_WEBHOOKS,
  msText,
  shortEventId,
  statusText,
  webhookRequest,
} from "../src/app/account/webhook-words.js";

describe("the account page's words for webhooks", () => {
  it("names every kind of event the API delivers, in its order, with what each covers", () => {
    expect(ALL_KINDS).toEqual(["file", "content", "permissions", "comment"]);
    expect(EVENT_KINDS.file.label).toBe("Files");
    expect(EVENT_KINDS.permissions.hint).toMatch(/Shared/);
    expect(MOST_WEBHOOKS).toBe(20);
  });

  it("makes a webhook's request from the form: every kind as *, some as the list in the API's order", () => {
    expect(webhookRequest(" https://example.com/cellar ", new Set(ALL_KINDS))).toEqual({
      url: "https://example.com/cellar",
      events: ["*"],
    });
    expect(webhookRequest("https://example.com/hook", new Set(["comment", "file"] as const))).toEqual({
      url: "https://example.com/hook",
      events: ["file", "comment"],
    });
    // http:// is the server's to refuse or allow (a private address where it allows those).
    expect(webhookRequest("http://127.0.0.1:8080/hook", new Set(["content"] as const))).toEqual({
      url: "http://127.0.0.1:8080/hook",
      events: ["content"],
    });
  });

  it("says what is wrong with the form before asking the server", () => {
    const every = new Set(ALL_KINDS);
    expect(webhookRequest("   ", every)).toHaveProperty("problem", expect.stringMatching(/^Give the address/));
    for (const url of ["example.com/hook", "/hook", "ftp://example.com/x", "mailto:a@example.com"]) {
      expect(webhookRequest(url, every), url).toHaveProperty("problem", expect.stringMatching(/https:\/\//));
    }
    expect(webhookRequest(`https://example.com/${"x".repeat(2048)}`, every)).toEqual({
      problem: "A webhook's URL is at most 2048 characters.",
    });
    expect(webhookRequest("https://example.com/hook", new Set())).toEqual({
      problem: "Choose at least one kind of event to send.",
    });
  });

  it("says a webhook's kinds in words", () => {
    expect(eventsText(["file", "content", "permissions", "comment"])).toBe("All events");
    expect(eventsText(["*"])).toBe("All events");
    expect(eventsText(["comment", "file"])).toBe("Files, Comments");
    expect(eventsText(["permissions"])).toBe("Sharing");
  });

  it("shortens an event's id for a row, keeping its prefix", () => {
    expect(shortEventId("evt_mfrggzdfmztwq2lknnwg23tp")).toBe("evt_mfrggzdf…");
    expect(shortEventId("evt_short")).toBe("evt_short");
    expect(shortEventId("abcdefghijkl")).toBe("abcdefgh…");
  });

  it("says an attempt's answer: its status, or no answer; delivered only for a 2xx", () => {
    expect(statusText({ status: 200 })).toBe("200");
    expect(statusText({ status: null })).toBe("no answer");
    expect(delivered({ status: 200 })).toBe(true);
    expect(delivered({ status: 204 })).toBe(true);
    expect(delivered({ status: 302 })).toBe(false);
    expect(delivered({ status: 500 })).toBe(false);
    expect(delivered({ status: null })).toBe(false);
    expect(msText(84, "en-GB")).toBe("84 ms");
    expect(msText(1204.4, "en-GB")).toBe("1,204 ms");
  });

  it("reads only the first items of a paged list, stopping there", async () => {
    let read = 0;
    async function* pages() {
      for (let n = 1; n <= 100; n++) {
        read = n;
        yield n;
      }
    }
    expect(await firstOf(pages(), 3)).toEqual([1, 2, 3]);
    expect(read).toBe(3);
    expect(await firstOf(pages(), 0)).toEqual([]);
    async function* few() {
      yield "a";
    }
    expect(await firstOf(few(), 10)).toEqual(["a"]);
  });
});
