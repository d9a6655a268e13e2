import Keyv from "keyv";
import { describe, expect, it } from "vitest";
import type { InboundMessage } from "../../../src/bridge/inbound.js";
import { Transcript } from "../../../src/bridge/transcript.js";
import { createLogger } from "../../../src/common/log.js";
import { ViewingDesk } from "../../../src/features/viewings/viewing-desk.js";
import { VIEWING_TEXTS, viewingTexts } from "../../../src/features/viewings/viewing-texts.js";
import type { Mail } from "../../../src/mail/smtp-mailer.js";
import { listingItem } from "../../upstream/scripted-chatbot.js";

const CONVERSATION = "telegram:default:42";
let nextEvent = 0;

function message(text: string, fields: Partial<InboundMessage> = {}): InboundMessage {
  return {
    channel: "telegram",
    botId: "default",
    eventId: String(++nextEvent),
    target: { chatId: "42", isGroup: false },
    user: { id: "42", name: "Ana", handle: "@ana", link: "https://t.me/ana" },
    text,
    media: [],
    receivedAt: new Date(),
    ...fields,
  };
}

const tap = () => message("Book a viewing of MLS TX-1001", { button: "card:viewing:TX-1001" });

/** A desk on a memory store, with a clock the test moves and the mails it submits recorded (each id once). */
function desk(options: { outbox?: boolean; email?: string; language?: string } = {}) {
  let now = Date.parse("2026-06-10T07:00:00Z");
  const submitted = new Map<string, Mail>();
  const outbox = {
    submit: async (id: string, mail: Mail) => {
      if (submitted.has(id)) return "duplicate" as const;
      submitted.set(id, mail);
      return "sent" as const;
    },
  };
  const viewings = new ViewingDesk({
    keyv: new Keyv(),
    outbox: options.outbox === false ? undefined : outbox,
    email: options.email ?? "agents@homes.example",
    transcript: new Transcript(new Keyv()),
    log: createLogger("silent"),
    timeoutMs: 30 * 60_000,
    now: () => now,
  });
  const bot = {
    settings: { read: async () => ({ TimeZone: "Europe/Madrid", AIResponseLanguage: options.language }) },
    listings: { listing: async () => listingItem("TX-1001") },
  };
  return {
    submitted,
    handle: (batch: InboundMessage[], isCommand = false) => viewings.handle(CONVERSATION, batch, isCommand, bot),
    wait: (ms: number) => {
      now += ms;
    },
  };
}

describe("ViewingDesk", () => {
  it("gives the same turn for the same event again, without a second mail", async () => {
    const { handle, submitted } = desk();
    expect(await handle([tap()])).toEqual({ replies: [VIEWING_TEXTS.askTime("12 Oak St, Austin, TX 78701")] });
    const time = message("Saturday at 10am");
    const turn = await handle([time]);
    expect(turn?.replies).toEqual([VIEWING_TEXTS.sent("Saturday 13 June at 10:00")]);
    expect(turn?.lead).toMatchObject({ Type: "Viewing", Name: "Ana" });
    // A job run again after a crash: the same turn, nothing submitted again.
    expect(await handle([time])).toEqual(turn);
    expect(submitted.size).toBe(1);
    expect([...submitted.keys()]).toEqual([`viewing:telegram:default:${time.eventId}`]);
    // The flow is over: the next message is the chatbot's.
    expect(await handle([message("and parking?")])).toBeUndefined();
  });

  it("ends silently after 30 minutes without an answer", async () => {
    const { handle, wait, submitted } = desk();
    await handle([tap()]);
    wait(30 * 60_000);
    expect(await handle([message("Saturday at 10am")])).toBeUndefined();
    expect(submitted.size).toBe(0);
  });

  it("leaves the flow on a command, which is then handled as usual", async () => {
    const { handle } = desk();
    await handle([tap()]);
    expect(await handle([message("/human")], true)).toBeUndefined();
    expect(await handle([message("Saturday at 10am")])).toBeUndefined();
  });

  it("says honestly that no one can be reached without a mail server, and records no lead", async () => {
    const { handle } = desk({ outbox: false });
    await handle([tap()]);
    expect(await handle([message("Saturday at 10am")])).toEqual({ replies: [VIEWING_TEXTS.unreachable] });
  });

  it("speaks the chatbot's AIResponseLanguage: Spanish, English for a language without a table of its own", async () => {
    const spanish = viewingTexts("Español");
    const { handle, submitted } = desk({ language: "Español", outbox: true });
    expect(await handle([tap()])).toEqual({ replies: [spanish.askTime("12 Oak St, Austin, TX 78701")] });
    expect(spanish.askTime("x")).toMatch(/^¿Cuándo te gustaría visitar x\?/);
    const turn = await handle([message("el sábado a las 10")], false);
    expect(turn?.replies).toEqual([spanish.sent("sábado 13 de junio a las 10:00")]);
    // The agency's mail stays in English.
    expect([...submitted.values()][0]?.text).toContain("Understood as: Saturday 13 June at 10:00 (Europe/Madrid)");
    await handle([tap()]);
    expect(await handle([message("cancelar")])).toEqual({ replies: [spanish.cancelled] });

    const german = desk({ language: "German" });
    expect(await german.handle([tap()])).toEqual({ replies: [VIEWING_TEXTS.askTime("12 Oak St, Austin, TX 78701")] });
  });
});
