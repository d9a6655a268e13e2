import type { Response } from "express";
import { afterEach, describe, expect, it } from "vitest";
import { WebChannel } from "../../../adapters/web/outbound.js";
import { webChatPage } from "../../../adapters/web/page.js";
import type { BridgeStore } from "../../../src/bridge/store/bridge-store.js";
import { openMemoryStore } from "../../../src/bridge/store/memory-store.js";

/** A stand-in for an express response held open as an event stream. */
function page() {
  const written: string[] = [];
  const listeners: (() => void)[] = [];
  let ended = false;
  const res = {
    write: (chunk: string) => written.push(chunk),
    end: () => {
      ended = true;
    },
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
    ended: () => ended,
    close: () => {
      for (const listener of listeners) listener();
    },
  };
}

const target = { chatId: "visitor-1", isGroup: false };
const stores: BridgeStore[] = [];
const newChannel = () => {
  const store = openMemoryStore("test");
  stores.push(store);
  return new WebChannel(store.visitorEvents);
};
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});

describe("WebChannel", () => {
  it("streams sends and edits to the visitor's open pages as events with increasing ids", async () => {
    const channel = newChannel();
    const open = page();
    await channel.subscribe("visitor-1", open.res, undefined);
    const sent = await channel.send(target, { text: "Hel", format: "markdown" });
    await channel.edit(target, sent, { text: "Hello **you** <3", format: "markdown", quickReplies: ["More"] });
    await channel.typing(target);
    const [first, second, third] = open.events();
    expect(first).toMatchObject({ type: "message", id: sent.id, text: "Hel", format: "markdown", html: "Hel" });
    // The page gets the HTML rendered here, by the block parser every channel shares.
    expect(second).toMatchObject({
      type: "message",
      id: sent.id,
      text: "Hello **you** <3",
      html: "Hello <strong>you</strong> &lt;3",
      quickReplies: ["More"],
    });
    expect(third).toMatchObject({ type: "typing" });
    expect(second.seq).toBeGreaterThan(first.seq);
    expect(third.seq).toBeGreaterThan(second.seq);
  });

  it("replays the latest state of each message after Last-Event-ID to a page that reconnects", async () => {
    const channel = newChannel();
    const a = await channel.send(target, { text: "first", format: "plain" });
    const b = await channel.send(target, { text: "second draft", format: "plain" });
    await channel.edit(target, b, { text: "second", format: "plain" });
    await channel.typing(target);
    const fresh = page();
    await channel.subscribe("visitor-1", fresh.res, undefined);
    expect(fresh.events().map((event) => event.text)).toEqual(["first", "second"]);
    const resumed = page();
    await channel.subscribe("visitor-1", resumed.res, fresh.events()[0]?.seq);
    expect(resumed.events().map((event) => event.text)).toEqual(["second"]);
    expect(a.id).not.toBe(b.id);
  });

  it("gives messages ids no other instance or restart hands out again", async () => {
    const ids = new Set<string>();
    for (const channel of [newChannel(), newChannel()]) {
      for (let n = 0; n < 50; n++) ids.add((await channel.send(target, { text: "hi", format: "plain" })).id);
    }
    expect(ids.size).toBe(100);
    for (const id of ids) expect(id).toMatch(/^m[A-Za-z0-9_-]{16}$/);
  });

  it("writes what arrives while the replay is read after it, once", async () => {
    const store = openMemoryStore("test");
    stores.push(store);
    const channel = new WebChannel(store.visitorEvents);
    const sent = await channel.send(target, { text: "before", format: "plain" });
    // An edit lands between the subscription and the read of the replay: the page gets it after the replay.
    const since = store.visitorEvents.since.bind(store.visitorEvents);
    store.visitorEvents.since = async (visitor, afterId) => {
      const replay = await since(visitor, afterId);
      await channel.edit(target, sent, { text: "edited meanwhile", format: "plain" });
      return replay;
    };
    const open = page();
    await channel.subscribe("visitor-1", open.res, undefined);
    expect(open.events().map((event) => event.text)).toEqual(["before", "edited meanwhile"]);
  });

  it("keeps visitors apart and stops writing to closed pages", async () => {
    const channel = newChannel();
    const mine = page();
    const theirs = page();
    await channel.subscribe("visitor-1", mine.res, undefined);
    await channel.subscribe("visitor-2", theirs.res, undefined);
    await channel.send(target, { text: "for visitor 1", format: "plain" });
    expect(theirs.events()).toEqual([]);
    mine.close();
    await channel.send(target, { text: "later", format: "plain" });
    expect(mine.events().map((event) => event.text)).toEqual(["for visitor 1"]);
  });

  it("ends a page's stream when its live delivery is lost, so the page reconnects and catches up", async () => {
    const store = openMemoryStore("test");
    const open = page();
    await new WebChannel(store.visitorEvents).subscribe("visitor-1", open.res, undefined);
    expect(open.ended()).toBe(false);
    await store.close();
    expect(open.ended()).toBe(true);
  });

  it("fails a send the event log could not take as a transient channel error", async () => {
    const store = openMemoryStore("test");
    const channel = new WebChannel(store.visitorEvents);
    await store.close();
    await expect(channel.send(target, { text: "hi", format: "plain" })).rejects.toMatchObject({ kind: "transient" });
  });

  it("has no native drafts", async () => {
    await expect(newChannel().draft()).rejects.toMatchObject({ kind: "rejected" });
    expect(newChannel().capabilities()).toMatchObject({ canEdit: true, nativeDraft: false });
  });
});

describe("the web chat page", () => {
  it("is the widget over the whole page, escapes what it is given and loads nothing from elsewhere", () => {
    const html = webChatPage('<script>alert("x")</script> & Co', 'sn-"1"', true);
    expect(html).toContain("<title>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; Co</title>");
    expect(html).toContain('<script src="/widget.js" data-chatbot="sn-&quot;1&quot;" data-mode="page" async></script>');
    expect(html).not.toMatch(/(src|href)="https?:/);
  });

  it("says how to build the widget when it was not built", () => {
    const html = webChatPage("Homes", "sn-1", false);
    expect(html).not.toContain("<script");
    expect(html).toContain("run <code>npm run build</code>");
  });
});
