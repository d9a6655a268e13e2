import { describe, expect, it } from "vitest";
import type { ChatSession, NewLead } from "../../../src/server/domain.js";
import { newChatbot, type PinnableClock, type StoreGetter } from "./fixtures.js";

const contact = (
  session: ChatSession,
  fields: Partial<Omit<NewLead, "sessionId">> = {},
): NewLead & { sessionId: number } => ({
  chatbotId: session.chatbotId,
  sessionId: session.id,
  type: "Contact",
  name: "",
  email: "jane@example.com",
  phone: "",
  content: "write to jane@example.com",
  ...fields,
});

/** Leads: handoffs, contacts recorded once per session, the list's filters, and the cascade. */
export function leadsContract(store: StoreGetter, clock: PinnableClock): void {
  describe("leads", () => {
    it("adds a handoff and returns every field as stored", async () => {
      const chatbot = await newChatbot(store());
      clock.set("2024-05-01T12:00:00.250Z");
      const input: NewLead = {
        chatbotId: chatbot.id,
        sessionId: null,
        type: "Handoff",
        name: "Ana «Lu» Souza",
        email: "ana@example.com",
        phone: "+55 11 99999-0000",
        content: 'Wants a visit\n"tomorrow" 🏠',
      };

      const lead = await store().leads.add(input);

      expect(lead).toEqual({ id: expect.any(Number), ...input, createdAt: new Date("2024-05-01T12:00:00.250Z") });
      expect(await store().leads.list(chatbot.id, {})).toEqual([lead]);
    });

    it("records a contact once per session: the same key again is refused, another session may have it", async () => {
      const chatbot = await newChatbot(store());
      const session = await store().sessions.create({ chatbotId: chatbot.id, uri: "web" });
      const other = await store().sessions.create({ chatbotId: chatbot.id, uri: "web" });

      const first = await store().leads.addContact(contact(session), "email:jane@example.com");
      const again = await store().leads.addContact(
        contact(session, { email: "JANE@example.com", content: "again" }),
        "email:jane@example.com",
      );
      const elsewhere = await store().leads.addContact(contact(other), "email:jane@example.com");
      const phone = await store().leads.addContact(contact(session, { email: "", phone: "555-0100" }), "phone:5550100");

      expect(first).toMatchObject({ sessionId: session.id, email: "jane@example.com" });
      expect(again).toBeUndefined();
      expect(elsewhere).toMatchObject({ sessionId: other.id });
      expect(phone).toMatchObject({ phone: "555-0100" });
      expect(await store().leads.list(chatbot.id, { sessionId: session.id })).toEqual([first, phone]);
    });

    it("records a contact once when two writers race for it", async () => {
      const chatbot = await newChatbot(store());
      const session = await store().sessions.create({ chatbotId: chatbot.id, uri: "web" });

      const results = await Promise.all(
        Array.from({ length: 5 }, () => store().leads.addContact(contact(session), "email:jane@example.com")),
      );

      expect(results.filter((lead) => lead !== undefined)).toHaveLength(1);
      expect(await store().leads.list(chatbot.id, {})).toHaveLength(1);
    });

    it("lists a chatbot's leads oldest first, within [from, to) and of one session", async () => {
      const chatbot = await newChatbot(store());
      const otherChatbot = await newChatbot(store());
      const session = await store().sessions.create({ chatbotId: chatbot.id, uri: "web" });
      const other = await store().sessions.create({ chatbotId: chatbot.id, uri: "web" });
      const at = async (iso: string, lead: NewLead) => {
        clock.set(iso);
        return store().leads.add(lead);
      };
      const handoff = (s: ChatSession | null, content: string): NewLead => ({
        chatbotId: chatbot.id,
        sessionId: s?.id ?? null,
        type: "Handoff",
        name: "",
        email: "",
        phone: "",
        content,
      });
      const late = await at("2024-05-02T10:00:00Z", handoff(session, "late"));
      const early = await at("2024-05-01T23:59:59.999Z", handoff(other, "early"));
      const edge = await at("2024-05-02T00:00:00Z", handoff(null, "on the dot"));
      await at("2024-05-02T11:00:00Z", { ...handoff(null, "another chatbot"), chatbotId: otherChatbot.id });

      const list = (filter: { from?: string; to?: string; sessionId?: number }) =>
        store().leads.list(chatbot.id, {
          from: filter.from === undefined ? undefined : new Date(filter.from),
          to: filter.to === undefined ? undefined : new Date(filter.to),
          sessionId: filter.sessionId,
        });
      expect(await list({})).toEqual([early, edge, late]);
      expect(await list({ from: "2024-05-02T00:00:00Z" })).toEqual([edge, late]);
      expect(await list({ to: "2024-05-02T00:00:00Z" })).toEqual([early]);
      expect(await list({ sessionId: session.id })).toEqual([late]);
      expect(await list({ from: "2024-05-02T00:00:00Z", sessionId: other.id })).toEqual([]);
    });

    it("go with their chatbot", async () => {
      const chatbot = await newChatbot(store());
      const session = await store().sessions.create({ chatbotId: chatbot.id, uri: "web" });
      await store().leads.addContact(contact(session), "email:jane@example.com");

      await store().chatbots.remove(chatbot.id);

      expect(await store().leads.list(chatbot.id, {})).toEqual([]);
    });
  });
}
