import { describe, expect, it } from "vitest";
import { AlbumCollector } from "../../src/bridge/album-collector.js";
import type { InboundMessage } from "../../src/bridge/inbound.js";

let nextEvent = 0;

function message(text: string, album?: string): InboundMessage {
  return {
    channel: "telegram",
    botId: "default",
    eventId: String(++nextEvent),
    target: { chatId: "1", isGroup: false },
    user: { id: "1" },
    text,
    media: album ? [{ kind: "image", platformId: `photo-${nextEvent}` }] : [],
    album,
    receivedAt: new Date(),
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function collector(windowMs: number) {
  const released: { conversation: string; message: InboundMessage; at: number }[] = [];
  const started = performance.now();
  const albums = new AlbumCollector(windowMs, (conversation, released_) =>
    released.push({ conversation, message: released_, at: performance.now() - started }),
  );
  return { albums, released };
}

describe("AlbumCollector", () => {
  it("passes messages without an album straight through", () => {
    const { albums, released } = collector(100);
    albums.add("c1", message("hello"));
    expect(released.map((item) => item.message.text)).toEqual(["hello"]);
  });

  it("releases an album's pieces as one message once no more came for a window", async () => {
    const { albums, released } = collector(80);
    albums.add("c1", message("garden?", "g1"));
    await sleep(50);
    albums.add("c1", message("", "g1"));
    await sleep(50);
    // 100 ms after the first piece, but only 50 ms after the last: still waiting.
    expect(released).toEqual([]);
    albums.add("c1", message("and this", "g1"));
    await sleep(150);
    expect(released).toHaveLength(1);
    const [album] = released;
    expect(album?.message.text).toBe("garden?\nand this");
    expect(album?.message.media.map((media) => media.platformId)).toHaveLength(3);
    expect(album?.message.eventId).toBe(String(nextEvent - 2));
  });

  it("lets an album go first when another message of the conversation comes, keeping their order", () => {
    const { albums, released } = collector(10_000);
    albums.add("c1", message("", "g2"));
    albums.add("c1", message("", "g2"));
    albums.add("c1", message("the price?"));
    expect(released.map((item) => [item.message.media.length, item.message.text])).toEqual([
      [2, ""],
      [0, "the price?"],
    ]);
  });

  it("keeps conversations apart, and a new album closes the previous one", () => {
    const { albums, released } = collector(10_000);
    albums.add("c1", message("", "a"));
    albums.add("c2", message("", "a"));
    albums.add("c1", message("", "b"));
    expect(released.map((item) => [item.conversation, item.message.album])).toEqual([["c1", "a"]]);
    albums.flushAll();
    expect(released.map((item) => [item.conversation, item.message.album])).toEqual([
      ["c1", "a"],
      ["c2", "a"],
      ["c1", "b"],
    ]);
  });

  it("waits at most four windows however long pieces keep coming", async () => {
    const { albums, released } = collector(40);
    for (let i = 0; i < 12 && released.length === 0; i++) {
      albums.add("c1", message("", "endless"));
      await sleep(25);
    }
    expect(released.length).toBeGreaterThan(0);
    expect(released[0]?.at).toBeLessThan(4 * 40 + 60);
  });

  it("with a window of 0, does not wait at all", () => {
    const { albums, released } = collector(0);
    albums.add("c1", message("", "g"));
    expect(released).toHaveLength(1);
  });
});
