import { describe, expect, it } from "vitest";
import type { InboundMessage } from "../../src/bridge/inbound.js";
import { inboundMessage, isMessagePayload, messagePayload, readPayload } from "../../src/bridge/work-payload.js";

const message: InboundMessage = {
  channel: "whatsapp",
  botId: "default",
  eventId: "wamid.1",
  target: { chatId: "15550002222", isGroup: false },
  user: { id: "15550002222" },
  text: "hi",
  media: [],
  receivedAt: new Date("2026-11-28T12:00:05Z"),
  sentAt: new Date("2026-11-28T12:00:00Z"),
};

/** A payload as the store gives it back: JSON. */
const stored = (value: unknown) => JSON.parse(JSON.stringify(value));

describe("work payload", () => {
  it("keeps a message's dates through the store, the platform's time of sending included", () => {
    const payload = readPayload(stored(messagePayload(message)));
    expect(payload?.kind).toBe("message");
    if (!isMessagePayload(payload)) return;
    expect(inboundMessage(payload.message)).toEqual(message);
  });

  it("leaves the time of sending out where the platform gave none", () => {
    const { sentAt: _, ...unsent } = message;
    const payload = readPayload(stored(messagePayload(unsent)));
    if (!isMessagePayload(payload)) throw new Error("not a message payload");
    expect(inboundMessage(payload.message)).toEqual(unsent);
    expect("sentAt" in inboundMessage(payload.message)).toBe(false);
  });
});
