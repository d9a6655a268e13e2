import { afterEach, describe, expect, it } from "vitest";
import { WebChannel } from "../../../adapters/web/outbound.js";
import type { BridgeStore } from "../../../src/bridge/store/bridge-store.js";
import { openMemoryStore } from "../../../src/bridge/store/memory-store.js";
import type { ListingCard } from "../../../src/features/listings/listing-card.js";

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

const stores: BridgeStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});

describe("WebChannel's card surface", () => {
  it("writes the cards as an event of their own, with the actions whose buttons the widget draws", async () => {
    const store = openMemoryStore("test");
    stores.push(store);
    const channel = new WebChannel(store.visitorEvents, "default");
    const events: unknown[] = [];
    await store.visitorEvents.subscribe(target.chatId, (event) => events.push(event.data));

    await channel.send(target, { text: "See MLS# TX-1001 and MLS# TX-2002 today.", format: "markdown" });
    const sent = await channel.cards.send(target, [card("TX-1001"), card("TX-2002")], ["similar", "viewing"]);

    expect(events).toEqual([
      expect.objectContaining({ type: "message", text: "See MLS# TX-1001 and MLS# TX-2002 today." }),
      {
        type: "cards",
        id: sent.id,
        cards: [card("TX-1001"), card("TX-2002")],
        actions: ["similar", "viewing"],
        at: expect.any(String),
      },
    ]);
    // A reload replays both, in order.
    const replay = await store.visitorEvents.since(target.chatId, undefined);
    expect(replay.map((event) => (event.data as { type: string }).type)).toEqual(["message", "cards"]);
  });
});
