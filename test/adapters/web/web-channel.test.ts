import type { Response } from "express";
import { describe, expect, it } from "vitest";
import { webChatPage } from "../../../adapters/web/page.js";
import { WebChannel } from "../../../adapters/web/web-channel.js";

/** A stand-in for an express response held open as an event stream. */
function page() {
  const written: string[] = [];
  const listeners: (() => void)[] = [];
  const res = {
    write: (chunk: string) => written.push(chunk),
    on: (event: string, listener: () => void) => {
      if (event === "close") listeners.push(listener);
      return res;
    },
  };
  const events = () =>
    written.map((frame) => {
      const [idLine, dataLine] = frame.trim().split("\n");
      return { seq: Number(idLine?.slice(4)), ...JSON.parse(dataLine?.slice(6) ?? "{}") };
    });
  return {
    res: res as unknown as Response,
    events,
    close: () => {
      for (const listener of listeners) listener();
    },
  };
}

const target = { chatId: "visitor-1", isGroup: false };

describe("WebChannel", () => {
  it("streams sends and edits to the visitor's open pages as numbered events", async () => {
    const channel = new WebChannel();
    const open = page();
    channel.subscribe("visitor-1", open.res, undefined);
    const sent = await channel.send(target, { text: "Hel", format: "markdown" });
    await channel.edit(target, sent, { text: "Hello", format: "markdown", quickReplies: ["More"] });
    await channel.typing(target);
    const [first, second, third] = open.events();
    expect(first).toMatchObject({ seq: 1, type: "message", id: sent.id, text: "Hel" });
    expect(second).toMatchObject({ seq: 2, type: "message", id: sent.id, text: "Hello", quickReplies: ["More"] });
    expect(third).toMatchObject({ seq: 3, type: "typing" });
  });

  it("replays the latest state of each message after Last-Event-ID to a page that reconnects", async () => {
    const channel = new WebChannel();
    const a = await channel.send(target, { text: "first", format: "plain" });
    const b = await channel.send(target, { text: "second draft", format: "plain" });
    await channel.edit(target, b, { text: "second", format: "plain" });
    await channel.typing(target);
    const fresh = page();
    channel.subscribe("visitor-1", fresh.res, undefined);
    expect(fresh.events().map((event) => event.text)).toEqual(["first", "second"]);
    const resumed = page();
    channel.subscribe("visitor-1", resumed.res, 1);
    expect(resumed.events().map((event) => event.text)).toEqual(["second"]);
    expect(a.id).not.toBe(b.id);
  });

  it("keeps visitors apart and stops writing to closed pages", async () => {
    const channel = new WebChannel();
    const mine = page();
    const theirs = page();
    channel.subscribe("visitor-1", mine.res, undefined);
    channel.subscribe("visitor-2", theirs.res, undefined);
    await channel.send(target, { text: "for visitor 1", format: "plain" });
    expect(theirs.events()).toEqual([]);
    mine.close();
    await channel.send(target, { text: "later", format: "plain" });
    expect(mine.events().map((event) => event.text)).toEqual(["for visitor 1"]);
  });

  it("has no native drafts", async () => {
    await expect(new WebChannel().draft()).rejects.toMatchObject({ kind: "rejected" });
    expect(new WebChannel().capabilities()).toMatchObject({ canEdit: true, nativeDraft: false });
  });
});

describe("the web chat page", () => {
  it("escapes the title and ships no external resources", () => {
    const html = webChatPage('<script>alert("x")</script> & Co');
    expect(html).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; Co");
    expect(html).not.toMatch(/<script src=|<link [^>]*href="http/);
    expect(html).toContain('aria-live="polite"');
  });
});
