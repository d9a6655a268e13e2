/**
 * "Book a viewing" on the web chat, through its HTTP routes, against the bridge as `npm start` runs it (embedded API,
 * demo chatbot): the tap posted as the card's action, the time, the visitor's contact (a web visitor has none the
 * channel knows), the mail in the SMTP sink with its calendar file, and the Viewing lead in the embedded server.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningBridge } from "../../../src/app/bridge-app.js";
import type { ChatbotClient } from "../../../src/client/index.js";
import { VIEWING_TEXTS } from "../../../src/features/viewings/viewing-texts.js";
import { describeTime, understandTime } from "../../../src/features/viewings/viewing-time.js";
import { SmtpSink } from "../../support/smtp-sink.js";
import { until } from "../../support/waiting.js";
import { openWebChatStream } from "../../support/web-chat-stream.js";
import { startDemoBridge } from "../../support/widget-harness.js";

let running: RunningBridge;
let serial: string;
let client: ChatbotClient;
let smtp: SmtpSink;
let timeZone: string;

beforeAll(async () => {
  smtp = await SmtpSink.start();
  ({ running, serial, client } = await startDemoBridge({
    SMTP_URL: smtp.url(),
    MAIL_FROM: "Homes bot <bot@homes.example>",
    HANDOFF_EMAIL: "agents@homes.example",
  }));
  timeZone = (await client.getChatbot(serial)).TimeZone || "UTC";
  await client.createListing({
    SerialNumber: serial,
    SaleType: "for_sale",
    Status: "Active",
    CurrencySymbol: "$",
    PropertyType: "House",
    Bedrooms: 3,
    Bathrooms: 2,
    Url: "https://homes.example.com/homes/view-1",
    MLSNumber: "VIEW-1",
    YearBuilt: 1998,
    DaysOnMarket: 5,
    LotArea: 5000,
    BuildingArea: 1800,
    AreaUnit: "Square Feet",
    ParkingSpots: 1,
    Address: "5 Elm St",
    City: "Austin",
    State: "TX",
    ZIP: "78702",
    SalePrice: 510_000,
  });
}, 60_000);

afterAll(async () => {
  await running?.close(1000);
  await smtp?.stop();
});

describe("Book a viewing on the web chat (routes → bridge → SMTP sink, embedded API)", () => {
  it("asks for a time and a contact, mails the agency with an .ics, records a Viewing lead and confirms", async () => {
    const visitor = (
      (await (await fetch(`${running.url}/webchat/visitors`, { method: "POST" })).json()) as {
        visitor: string;
      }
    ).visitor;
    const post = async (messageId: string, body: Record<string, unknown>) => {
      const response = await fetch(`${running.url}/webchat/messages`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ visitorId: visitor, messageId, chatbot: serial, ...body }),
      });
      expect(response.status).toBe(202);
    };
    const stream = await openWebChatStream(running.url, visitor);
    const said = async (count: number) => {
      await until(() => (stream.messages().length >= count ? true : undefined), 15_000);
      return stream.messages().map((message) => message.text);
    };
    try {
      await post("tap1", { cardAction: "card:viewing:VIEW-1" });
      // The tap is the visitor's first message: the greeting comes first, on its own.
      const [greeting, question] = await said(2);
      expect(greeting).toBe((await client.getChatbot(serial)).WelcomeMessage);
      expect(question).toBe(VIEWING_TEXTS.askTime("5 Elm St, Austin, TX 78702"));
      await post("time1", { text: "tomorrow at 10am" });
      expect((await said(3)).at(-1)).toBe(VIEWING_TEXTS.askContact);
      const before = smtp.received.length;
      await post("contact1", { text: "ana@example.com" });
      const understood = understandTime("tomorrow at 10am", new Date(), timeZone);
      if (!understood) throw new Error("the test's time was not understood");
      expect((await said(4)).at(-1)).toBe(VIEWING_TEXTS.sent(describeTime(understood)));
      // The same message posted again (a retried post) mails nothing more.
      await post("contact1", { text: "ana@example.com" });

      await until(() => (smtp.received.length > before ? true : undefined), 15_000);
      const mail = smtp.received.at(-1);
      expect(mail?.subject).toMatch(/^Viewing request: 5 Elm St, Austin, TX 78702 — user .* on web chat$/);
      expect(mail?.text).toContain("Price: $510,000");
      expect(mail?.text).toContain("Reach them: ana@example.com (mailto:ana@example.com)");
      const lines = (mail?.attachments[0]?.content ?? "").replace(/\r\n /g, "").split("\r\n");
      const pad = (n: number) => String(n).padStart(2, "0");
      const local = `${understood.year}${pad(understood.month)}${pad(understood.day)}T100000`;
      expect(lines).toContain(`DTSTART;TZID=${timeZone}:${local}`);
      expect(lines).toContain("LOCATION:5 Elm St\\, Austin\\, TX 78702");

      const leads = await client.listLeads({ serialNumber: serial });
      expect(leads.filter((lead) => lead.Type === "Viewing")).toEqual([
        expect.objectContaining({ Email: "ana@example.com", Content: expect.stringContaining("MLS VIEW-1") }),
      ]);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(smtp.received.length).toBe(before + 1);
    } finally {
      await stream.close();
    }
  });
});
