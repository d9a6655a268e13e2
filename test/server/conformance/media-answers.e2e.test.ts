import { describe, expect, it } from "vitest";
import type { AnswerEvent } from "../../../src/client/index.js";
import { availableBackends, expectSuccess, sampleListing, useApiHarness } from "../../support/api-harness.js";
import { png, wav } from "../../support/media-fixtures.js";

const ASK = "/chat/Chat/ClientAsk";

async function collect(events: AsyncIterable<AnswerEvent>): Promise<AnswerEvent[]> {
  const out: AnswerEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

describe.each(await availableBackends())("media answers of the embedded engine (%s)", (backend) => {
  const api = useApiHarness(backend);

  it("acknowledges a 12-second voice message, plain and streamed, and asks for text", async () => {
    const client = api.client(api.a);
    const fileId = await client.uploadFile({ fileName: "voice.wav", bytes: wav(12 * 8000) });
    const sessionID = await api.openSession(api.a);
    const expected =
      "I received a 12-second voice message. I can't listen to recordings offline, so please type what you're " +
      'looking for, for example "2 bedroom apartments for rent".';

    const plain = await api.call(
      ASK,
      { sessionID, content: "", chatAskType: "Audio", fileIds: [fileId] },
      api.a.secret,
    );
    expectSuccess(plain);
    expect(plain.body.Data).toMatchObject({ content: expected, noAnswer: true });

    const events = await collect(
      client.askStream({ sessionId: sessionID, content: "", chatAskType: "Audio", fileIds: [fileId] }),
    );
    const final = events.at(-1);
    if (final?.type !== "final") throw new Error("the stream did not end with its final object");
    expect(final.answer).toBe(expected);
    expect(events.length).toBeGreaterThan(2);
    expect(events.map((event) => (event.type === "delta" ? event.content : "")).join("")).toBe(expected);
  });

  it("acknowledges 2 photos, then answers their caption from the listings", async () => {
    const serial = await api.addChatbot(api.a);
    const listing = sampleListing(serial, { City: "Lakewood", SalePrice: 389_000, Bedrooms: 3 });
    expectSuccess(await api.call("/chat/Chatbot/RealEstateCreate", listing, api.a.secret));
    const client = api.client(api.a);
    const fileIds = [
      await client.uploadFile({ fileName: "front.png", bytes: png(4, 3) }),
      await client.uploadFile({ fileName: "garden.png", bytes: png(3, 4, [20, 160, 60]) }),
    ];
    const sessionID = await api.openSession(api.a, serial);
    const caption = "Homes for sale in Lakewood like these?";

    const response = await api.call(ASK, { sessionID, content: caption, chatAskType: "Image", fileIds }, api.a.secret);

    expectSuccess(response);
    const { content, noAnswer } = response.body.Data;
    const [acknowledgement, answer] = content.split("\n\n");
    expect(acknowledgement).toBe(
      "I received 2 photos. I can't look at photos offline, so I'll answer your written message.",
    );
    expect(answer).toMatch(/^I found 1 match for .*Lakewood/);
    expect(content).toContain("$389,000");
    expect(noAnswer).toBe(false);
    const [question] = await api.store.messages.recent(sessionID, 10);
    expect(question).toMatchObject({ role: "User", askType: "Image", fileIds, content: caption });
  });
});
