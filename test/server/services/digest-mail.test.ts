import { describe, expect, it } from "vitest";
import type { Lead } from "../../../src/server/domain.js";
import { chatLogsMail, leadsMail, MAX_CONVERSATIONS_PER_MAIL } from "../../../src/server/services/digest-mail.js";
import type { SessionTranscript } from "../../../src/server/store/api-store.js";

const about = { chatbotName: "Oak <&> Elm", day: "2026-05-01", timeZone: "Europe/Madrid" };

function transcript(id: number, startedIso: string, messageIso: string): SessionTranscript {
  return {
    session: { id, chatbotId: 1, uri: "", createdAt: new Date(startedIso) },
    messages: [{ id: id * 10, role: "User", content: `question ${id}`, createdAt: new Date(messageIso) }],
  };
}

describe("digest mails", () => {
  it("marks a conversation that began the day before, and escapes the HTML", () => {
    const mail = chatLogsMail(about, [transcript(7, "2026-04-30T21:50:00Z", "2026-04-30T22:10:00Z")]);

    expect(mail.subject).toBe("Oak <&> Elm: 1 conversation on 2026-05-01");
    expect(mail.text).toContain("Conversation 7 (continued from 2026-04-30)\n  00:10 User: question 7");
    expect(mail.html).toContain('<h2 style="margin-bottom:4px">Oak &#60;&#38;&#62; Elm: conversations on Friday');
    expect(mail.html).not.toContain("Oak <&> Elm");
  });

  it("shows at most the cap of conversations and counts the rest", () => {
    const many = Array.from({ length: MAX_CONVERSATIONS_PER_MAIL + 3 }, (_, index) =>
      transcript(index + 1, "2026-05-01T08:00:00Z", "2026-05-01T08:00:00Z"),
    );

    const mail = chatLogsMail(about, many);

    expect(mail.subject).toBe(`Oak <&> Elm: ${MAX_CONVERSATIONS_PER_MAIL + 3} conversations on 2026-05-01`);
    expect(mail.text).toContain(`question ${MAX_CONVERSATIONS_PER_MAIL}\n`);
    expect(mail.text).not.toContain(`question ${MAX_CONVERSATIONS_PER_MAIL + 1}`);
    expect(mail.text).toContain("…and 3 more conversations: read them with ChatContentHistory.");
  });

  it("lists only the sections that have leads", () => {
    const mail = leadsMail(about, [
      {
        id: 1,
        chatbotId: 1,
        sessionId: null,
        type: "Handoff",
        name: "Ana",
        email: "",
        phone: "+34 612 34 56 78",
        content: "",
        createdAt: new Date("2026-05-01T10:00:00Z"),
      },
    ]);

    expect(mail.subject).toBe("Oak <&> Elm: 1 lead on 2026-05-01");
    expect(mail.text).toContain("1 request to talk to a person, 0 contact details left in conversations");
    expect(mail.text).toContain("Requests to talk to a person\n  12:00 · Ana · +34 612 34 56 78");
    expect(mail.text).not.toContain("Contact details left in conversations\n");
    expect(mail.text).not.toContain("viewing");
  });

  it("lists viewing requests after the requests for a person", () => {
    const lead = {
      id: 1,
      chatbotId: 1,
      sessionId: 7,
      name: "Ana",
      email: "ana@example.com",
      phone: "",
      createdAt: new Date("2026-05-01T10:00:00Z"),
    };
    const mail = leadsMail(about, [
      { ...lead, type: "Viewing", content: 'Viewing of 12 Oak St (MLS TX-1001): "Saturday at 10am"' },
      { ...lead, id: 2, type: "Handoff", content: "" },
    ]);
    expect(mail.text).toContain("1 request to talk to a person, 1 viewing request, 0 contact details");
    expect(mail.text).toMatch(
      /Requests to talk to a person\n {2}12:00 · Ana[^\n]*\n\nRequests for a viewing\n {2}12:00 · Ana · ana@example.com · conversation 7\n {6}“Viewing of 12 Oak St/,
    );
    expect(mail.html).toContain("Requests for a viewing");
  });

  it("counts the visits from listing links per listing and channel, busiest listing first", () => {
    let id = 0;
    const visit = (mlsNumber: string, channel: string): Lead => ({
      id: ++id,
      chatbotId: 1,
      sessionId: 100 + id,
      type: "ListingVisit",
      name: "",
      email: "",
      phone: "",
      content: `MLS ${mlsNumber} via ${channel}`,
      createdAt: new Date("2026-05-01T10:00:00Z"),
    });
    const mail = leadsMail(about, [
      visit("TX-1001", "web"),
      visit("TX-2002", "whatsapp"),
      visit("TX-1001", "telegram"),
      visit("TX-1001", "telegram"),
    ]);

    expect(mail.subject).toBe("Oak <&> Elm: 4 listing link visits on 2026-05-01");
    expect(mail.text).toContain(", 4 listing link visits; times in Europe/Madrid.");
    expect(mail.text).toContain(
      "Visits from listing links and QR codes\n  TX-1001: 3 visits (telegram 2, web 1)\n  TX-2002: 1 visit (whatsapp 1)",
    );
    expect(mail.html).toContain("<li>TX-1001: 3 visits (telegram 2, web 1)</li>");
  });
});
