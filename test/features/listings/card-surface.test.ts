import { describe, expect, it } from "vitest";
import type { InboundMessage } from "../../../src/bridge/inbound.js";
import { cardTapMessage, cardTapOf } from "../../../src/features/listings/card-surface.js";

const message = (fields: Partial<InboundMessage> & Record<string, unknown>): InboundMessage => ({
  channel: "telegram",
  botId: "default",
  eventId: "1",
  target: { chatId: "1", isGroup: false },
  user: { id: "1" },
  text: "",
  media: [],
  receivedAt: new Date(0),
  ...fields,
});

describe("a listing card's tap", () => {
  it("comes in as the message it stands for, with the button's id", () => {
    expect(cardTapMessage("card:similar:TX-1001")).toEqual({
      text: "Show me homes similar to MLS TX-1001",
      button: "card:similar:TX-1001",
    });
    expect(cardTapMessage("card:viewing: TX-1001 ")).toEqual({
      text: "Book a viewing of MLS TX-1001",
      button: "card:viewing:TX-1001",
    });
    expect(cardTapMessage("ask:Homes for sale")).toBeUndefined();
    expect(cardTapMessage("card:tour:TX-1001")).toBeUndefined();
  });

  it("is read from the message's button, and from work queued before buttons by a card action", () => {
    expect(cardTapOf(message({ button: "card:viewing:TX-1001" }))).toEqual({ action: "viewing", mlsNumber: "TX-1001" });
    expect(cardTapOf(message({ button: "ask:Rentals" }))).toBeUndefined();
    expect(cardTapOf(message({}))).toBeUndefined();
    // A message stored by the version that carried the tap as `cardAction` (work waiting across an upgrade).
    const legacy = message({ cardAction: { action: "similar", mlsNumber: "B-7" } });
    expect(cardTapOf(legacy)).toEqual({ action: "similar", mlsNumber: "B-7" });
    expect(cardTapOf(message({ cardAction: { action: "tour", mlsNumber: "B-7" } }))).toBeUndefined();
  });
});
