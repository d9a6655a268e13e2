import { afterEach, describe, expect, it } from "vitest";
import { SETTLE_MS } from "../../../adapters/web/message-cards.js";
import { WebChannel } from "../../../adapters/web/outbound.js";
import type { ListingCard } from "../../../src/bridge/listings/listing-card.js";
import type { ListingCardLookup } from "../../../src/bridge/listings/listing-cards.js";
import type { ListingReference } from "../../../src/bridge/listings/listing-references.js";
import type { BridgeStore } from "../../../src/bridge/store/bridge-store.js";
import { openMemoryStore } from "../../../src/bridge/store/memory-store.js";
import { createLogger } from "../../../src/log.js";
import { holds } from "../../support/waiting.js";

const target = { chatId: "visitor-1", isGroup: false };
const card = (mlsNumber: string): ListingCard => ({
  mlsNumber,
  url: `https://homes.test/listing/${mlsNumber.toLowerCase()}`,
  price: "$450,000",
  saleType: "for_sale",
  beds: 3,
  baths: 2,
  address: "12 Oak St, Austin, TX 78701",
  propertyType: "House",
});

/** A lookup that answers only when the test lets it: a card for each MLS number, none for addresses. */
function heldLookup() {
  const asked: ListingReference[][] = [];
  const held: (() => void)[] = [];
  const lookup: ListingCardLookup = {
    cardsFor: async (references, max) => {
      asked.push([...references]);
      await new Promise<void>((resolve) => held.push(resolve));
      return references
        .flatMap((reference) => (reference.kind === "mls" ? [card(reference.mlsNumber)] : []))
        .slice(0, max);
    },
  };
  const release = () => {
    for (const resolve of held.splice(0)) resolve();
  };
  return { lookup, asked, release };
}

const stores: BridgeStore[] = [];
async function channelWith(lookup: ListingCardLookup, max = 3) {
  const store = openMemoryStore("test");
  stores.push(store);
  const channel = new WebChannel(store.visitorEvents, "default", {
    cards: { lookup, max, log: createLogger("silent") },
  });
  const events: { type: string; id?: string; cards?: ListingCard[]; text?: string }[] = [];
  await store.visitorEvents.subscribe(target.chatId, (event) => events.push(event.data as (typeof events)[number]));
  return { channel, events, store };
}
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});

describe("WebChannel with listing cards", () => {
  it("writes the text at once and the cards after it, once, whatever the lookup takes", async () => {
    const { lookup, asked, release } = heldLookup();
    const { channel, events, store } = await channelWith(lookup);
    // The send returns while the lookup is still held: the text never waits for the cards.
    const sent = await channel.send(target, { text: "See MLS# TX-1001 and MLS# TX-2002 today.", format: "markdown" });
    expect(events.map((event) => event.type)).toEqual(["message"]);
    await holds(() => asked.length > 0, 2_000);
    release();
    await holds(() => events.some((event) => event.type === "cards"), 2_000);
    // The same references again, in an edit that adds text: nothing is looked up or written again.
    await channel.edit(target, sent, {
      text: "See MLS# TX-1001 and MLS# TX-2002 today. Both are new.",
      format: "markdown",
    });
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS + 100));
    release();
    expect(events.map((event) => event.type)).toEqual(["message", "cards", "message"]);
    expect(events[1]).toEqual({
      type: "cards",
      id: sent.id,
      cards: [card("TX-1001"), card("TX-2002")],
      at: expect.any(String),
    });
    expect(asked).toHaveLength(1);
    // A reload replays both: the message's latest text and its cards.
    const replay = await store.visitorEvents.since(target.chatId, undefined);
    expect(replay.map((event) => (event.data as { type: string }).type).sort()).toEqual(["cards", "message"]);
  });

  it("looks up a reference at the very end of a growing text only once the text stops changing", async () => {
    const { lookup, asked, release } = heldLookup();
    const { channel, events } = await channelWith(lookup, 1);
    const sent = await channel.send(target, { text: "Try MLS# TX-10", format: "markdown" });
    await channel.edit(target, sent, { text: "Try MLS# TX-1001 or MLS# TX-20", format: "markdown" });
    // TX-1001 is followed by more text: complete, looked up at once; TX-20 may still grow.
    await holds(() => asked.length > 0, 2_000);
    expect(asked).toEqual([[{ kind: "mls", mlsNumber: "TX-1001" }]]);
    release();
    await holds(() => events.some((event) => event.type === "cards"), 2_000);
    await channel.edit(target, sent, { text: "Try MLS# TX-1001 or MLS# TX-2002", format: "markdown" });
    await holds(() => asked.length > 1, 2_000);
    expect(asked[1]).toEqual([
      { kind: "mls", mlsNumber: "TX-1001" },
      { kind: "mls", mlsNumber: "TX-2002" },
    ]);
    release();
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    // The partial "TX-10" and "TX-20" were never looked up; both lookups gave one card (max 1), written once.
    expect(asked).toHaveLength(2);
    expect(events.filter((event) => event.type === "cards").map((event) => event.cards)).toEqual([[card("TX-1001")]]);
  });

  it("writes no cards event for an answer whose listings are not found, nor for one that names none", async () => {
    let asked = 0;
    const { channel, events } = await channelWith({
      cardsFor: async () => {
        asked++;
        return [];
      },
    });
    await channel.send(target, { text: "Hello! How can I help?", format: "markdown" });
    await channel.send(target, { text: "https://homes.test/unknown is not a listing.", format: "markdown" });
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS + 100));
    expect(asked).toBe(1);
    expect(events.map((event) => event.type)).toEqual(["message", "message"]);
  });
});
