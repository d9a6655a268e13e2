import { describe, expect, it } from "vitest";
import type { ChatSession } from "../../../src/server/domain.js";
import { newChatbot, newMessage, type PinnableClock, type StoreGetter } from "./fixtures.js";

/** Sessions and messages: round trips, recent history, limits and transcripts. */
export function conversationsContract(store: StoreGetter, clock: PinnableClock): void {
  describe("sessions", () => {
    it("creates a session and finds it by id", async () => {
      const chatbot = await newChatbot(store());
      clock.set("2024-05-01T12:00:00.123Z");
      const session = await store().sessions.create({ chatbotId: chatbot.id, uri: "telegram:12345" });

      expect(session).toEqual({
        id: expect.any(Number),
        chatbotId: chatbot.id,
        uri: "telegram:12345",
        createdAt: new Date("2024-05-01T12:00:00.123Z"),
      });
      expect(await store().sessions.byId(session.id)).toEqual(session);
      expect(await store().sessions.byId(987_654_321)).toBeUndefined();
    });
  });

  describe("messages", () => {
    it("adds a message and returns every field as stored", async () => {
      const chatbot = await newChatbot(store());
      const session = await store().sessions.create({ chatbotId: chatbot.id, uri: "web" });
      clock.set("2024-05-01T12:00:01.456Z");
      const input = {
        ...newMessage(session, "AI", "Here are two homes:\n• Rua A — R$ 1.2M"),
        askType: "Image" as const,
        fileIds: [7, 8],
        totalToken: 1234,
        noAnswer: true,
        partial: true,
      };

      const message = await store().messages.add(input);

      expect(message).toEqual({ id: expect.any(Number), ...input, createdAt: new Date("2024-05-01T12:00:01.456Z") });
      expect(await store().messages.recent(session.id, 1)).toEqual([message]);
    });

    it("replaces the content of one message and leaves every other field", async () => {
      const chatbot = await newChatbot(store());
      const session = await store().sessions.create({ chatbotId: chatbot.id, uri: "web" });
      const voice = await store().messages.add({ ...newMessage(session, "User", ""), askType: "Audio", fileIds: [3] });
      const other = await store().messages.add(newMessage(session, "AI", "unchanged"));

      await store().messages.setContent(voice.id, "[Voice message] homes in Austin");

      expect(await store().messages.recent(session.id, 10)).toEqual([
        { ...voice, content: "[Voice message] homes in Austin" },
        other,
      ]);
    });

    it("gives the last messages of a session, oldest first", async () => {
      const chatbot = await newChatbot(store());
      const session = await store().sessions.create({ chatbotId: chatbot.id, uri: "web" });
      const other = await store().sessions.create({ chatbotId: chatbot.id, uri: "web" });
      const added = [];
      for (const [index, content] of ["one", "two", "three", "four"].entries()) {
        added.push(await store().messages.add(newMessage(session, index % 2 === 0 ? "User" : "AI", content)));
        await store().messages.add(newMessage(other, "User", `other ${content}`));
      }

      expect(await store().messages.recent(session.id, 2)).toEqual(added.slice(2));
      expect(await store().messages.recent(session.id, 10)).toEqual(added);
      expect(added.map((message) => message.id)).toEqual([...added.map((message) => message.id)].sort((a, b) => a - b));
    });

    it("counts a chatbot's messages of one role since a time, inclusive", async () => {
      const chatbot = await newChatbot(store());
      const otherChatbot = await newChatbot(store());
      const session = await store().sessions.create({ chatbotId: chatbot.id, uri: "web" });
      const otherSession = await store().sessions.create({ chatbotId: otherChatbot.id, uri: "web" });
      clock.set("2024-05-01T09:59:59.999Z");
      await store().messages.add(newMessage(session, "User", "too early"));
      clock.set("2024-05-01T10:00:00.000Z");
      await store().messages.add(newMessage(session, "User", "on the dot"));
      await store().messages.add(newMessage(session, "AI", "an answer"));
      clock.set("2024-05-01T11:00:00.000Z");
      await store().messages.add(newMessage(session, "User", "later"));
      await store().messages.add(newMessage(otherSession, "User", "another chatbot"));

      const since = new Date("2024-05-01T10:00:00.000Z");
      expect(await store().messages.countSince(chatbot.id, "User", since)).toBe(2);
      expect(await store().messages.countSince(chatbot.id, "AI", since)).toBe(1);
      expect(await store().messages.countSince(chatbot.id, "User", new Date("2024-05-01T12:00:00Z"))).toBe(0);
      expect(await store().messages.countSince(chatbot.id, "User", new Date(0))).toBe(3);
    });
  });

  describe("transcripts", () => {
    /** Two sessions created in order, whose messages interleave in time; one session without messages. */
    async function conversations() {
      const chatbot = await newChatbot(store());
      const say = async (session: ChatSession, iso: string, role: "User" | "AI", content: string) => {
        clock.set(iso);
        const message = await store().messages.add(newMessage(session, role, content));
        return { id: message.id, role, content, createdAt: new Date(iso) };
      };
      clock.set("2024-05-01T08:00:00Z");
      const first = await store().sessions.create({ chatbotId: chatbot.id, uri: "https://example.com/a" });
      clock.set("2024-05-01T08:30:00Z");
      const second = await store().sessions.create({ chatbotId: chatbot.id, uri: "slack:C123" });
      await store().sessions.create({ chatbotId: chatbot.id, uri: "silent" });
      const secondEarly = await say(second, "2024-05-01T09:00:00Z", "User", "second: hello");
      const firstLate = await say(first, "2024-05-02T09:00:00Z", "User", "first: anyone?");
      const firstAnswer = await say(first, "2024-05-02T09:00:05Z", "AI", "first: yes");
      const secondLate = await say(second, "2024-05-03T09:00:00Z", "AI", "second: bye");
      const otherChatbot = await newChatbot(store());
      const otherSession = await store().sessions.create({ chatbotId: otherChatbot.id, uri: "other" });
      await say(otherSession, "2024-05-02T10:00:00Z", "User", "not this chatbot");
      return { chatbot, first, second, secondEarly, firstLate, firstAnswer, secondLate };
    }

    it("gives every session that has messages, in creation order, with its messages oldest first", async () => {
      const c = await conversations();

      expect(await store().messages.transcripts(c.chatbot.id, {})).toEqual([
        { session: c.first, messages: [c.firstLate, c.firstAnswer] },
        { session: c.second, messages: [c.secondEarly, c.secondLate] },
      ]);
    });

    it("keeps only messages in [from, to), and sessions that have some", async () => {
      const c = await conversations();
      const transcripts = (range: { from?: string; to?: string }) =>
        store().messages.transcripts(c.chatbot.id, {
          from: range.from === undefined ? undefined : new Date(range.from),
          to: range.to === undefined ? undefined : new Date(range.to),
        });

      expect(await transcripts({ from: "2024-05-02T00:00:00Z", to: "2024-05-03T00:00:00Z" })).toEqual([
        { session: c.first, messages: [c.firstLate, c.firstAnswer] },
      ]);
      expect(await transcripts({ from: "2024-05-02T09:00:05Z" })).toEqual([
        { session: c.first, messages: [c.firstAnswer] },
        { session: c.second, messages: [c.secondLate] },
      ]);
      expect(await transcripts({ to: "2024-05-02T09:00:05Z" })).toEqual([
        { session: c.first, messages: [c.firstLate] },
        { session: c.second, messages: [c.secondEarly] },
      ]);
      expect(await transcripts({ from: "2024-06-01T00:00:00Z" })).toEqual([]);
    });
  });
}
